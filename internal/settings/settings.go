// Package settings holds the live settings: the values an admin changes at
// run time (fees, offer rounds, payout hold, moderation, rate limits) and the
// feature flags, read at each use on every replica. The areas never import
// it: each declares the small interface it reads (orders.Settings,
// offers.Settings, listings.Settings), and the app adapts this package to
// them.
package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/fresh"
	"marketplace/internal/market"
)

// Stored is one stored value, by wire name.
type Stored struct {
	Key       string
	Value     json.RawMessage
	UpdatedAt time.Time
	UpdatedBy string
}

// Entry is a known key with its effective value.
type Entry struct {
	Key         string
	Kind        Kind
	Description string
	Value       json.RawMessage // stored value, else the default
	Default     json.RawMessage
	UpdatedAt   *time.Time // nil while the default applies
	UpdatedBy   *string    // nil while the default applies
}

// Tx is what the settings need from a transaction.
type Tx interface {
	events.Tx
	ConfigValues(ctx context.Context) (map[string]Stored, error)
	PutConfigValue(ctx context.Context, v Stored) error
	// ConfigVersion is a counter every change moves (BumpConfigVersion, in
	// the change's transaction): a replica whose cache holds an older
	// version reloads.
	ConfigVersion(ctx context.Context) (int64, error)
	BumpConfigVersion(ctx context.Context) error
}

// Store opens transactions and read handles over Tx.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Service reads and changes the settings and feature flags. Values are
// cached; every read first reads the store's config version (one row by
// primary key) and reloads the values when it moved, so a change made on any
// replica applies to the next purchase, offer or listing everywhere without a
// restart (CONTRACT.md 3 "read at each purchase", 14).
type Service struct {
	store Store
	clock market.Clock

	// changes counts the changes made through this Service, so a hot-path
	// reader (the rate limiter) can cache values and still see this
	// process's changes at once (Changes).
	changes atomic.Int64

	versions fresh.Group[struct{}, int64] // config version reads, shared by concurrent callers

	mu      sync.Mutex
	loaded  bool
	version int64
	cache   map[string]Stored // never changed once cached: readers share it
}

// NewService returns the settings service.
func NewService(store Store, clock market.Clock) *Service {
	return &Service{store: store, clock: clock}
}

// Int is the effective value of an integer key.
func (s *Service) Int(ctx context.Context, k Key[int64]) (int64, error) {
	v, err := s.Ints(ctx, k)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Ints reads several integer keys with one read of the stored values.
func (s *Service) Ints(ctx context.Context, keys ...Key[int64]) ([]int64, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]int64, len(keys))
	for i, k := range keys {
		v, err := value(k.name, stored)
		if err != nil {
			return nil, err
		}
		n, err := strconv.ParseInt(string(v), 10, 64)
		if err != nil {
			return nil, market.Internal(fmt.Errorf("settings %s: %w", k.name, err))
		}
		out[i] = n
	}
	return out, nil
}

// Bool is the effective value of a boolean key.
func (s *Service) Bool(ctx context.Context, k Key[bool]) (bool, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return false, err
	}
	v, err := value(k.name, stored)
	if err != nil {
		return false, err
	}
	return string(v) == "true", nil
}

// Strings is the effective value of a string-array key.
func (s *Service) Strings(ctx context.Context, k Key[[]string]) ([]string, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return nil, err
	}
	v, err := value(k.name, stored)
	if err != nil {
		return nil, err
	}
	var out []string
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, market.Internal(fmt.Errorf("settings %s: %w", k.name, err))
	}
	return out, nil
}

// value is the effective value of the key named name. Every typed key is in
// the table; the zero Key, or a rate-limit lookup outside its table, is not,
// which is a programming error, hence internal.
func value(name string, stored map[string]Stored) (json.RawMessage, error) {
	sp, ok := specs[name]
	if !ok {
		return nil, market.Internal(fmt.Errorf("settings: unknown key %q", name))
	}
	return effective(name, sp, stored).Value, nil
}

// All lists every known key, sorted by key, with its effective value.
func (s *Service) All(ctx context.Context) ([]Entry, error) {
	stored, err := s.stored(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(specs))
	for _, key := range Names() {
		out = append(out, effective(key, specs[key], stored))
	}
	return out, nil
}

// stored returns the stored values, from the cache while the store's config
// version has not moved. The values are read after the version, so a cache
// is never older than the version it is filed under (at worst newer, which
// costs one extra reload).
func (s *Service) stored(ctx context.Context) (map[string]Stored, error) {
	read := s.store.Read()
	// A version read that began after the caller arrived is as good as its
	// own (a change holds from the next request); concurrent callers share one.
	v, err := s.versions.Do(ctx, struct{}{}, read.ConfigVersion)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.loaded && s.version == v {
		m := s.cache
		s.mu.Unlock()
		return m, nil
	}
	s.mu.Unlock()
	m, err := read.ConfigValues(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.loaded, s.version, s.cache = true, v, m
	s.mu.Unlock()
	return m, nil
}

// effective combines a key's spec with its stored value. A stored value that
// no longer passes validation (the key's range was narrowed after it was set)
// is ignored in favour of the default rather than failing every purchase.
func effective(key string, sp spec, stored map[string]Stored) Entry {
	e := Entry{Key: key, Kind: sp.kind, Description: sp.description, Value: sp.def, Default: sp.def}
	v, ok := stored[key]
	if !ok {
		return e
	}
	norm, msg := sp.check(v.Value)
	if msg != "" {
		return e
	}
	at, by := v.UpdatedAt, v.UpdatedBy
	e.Value, e.UpdatedAt, e.UpdatedBy = norm, &at, &by
	return e
}

// Set validates and stores a new value for the key named name (its wire
// name, as the admin route takes it) and records config.updated.
func (s *Service) Set(ctx context.Context, actor market.Actor, name string, value json.RawMessage) (*Entry, error) {
	e, _, err := s.Change(ctx, actor, name, value)
	return e, err
}

// Change is Set that also answers the value in force before, for the audit
// log.
func (s *Service) Change(ctx context.Context, actor market.Actor, name string, value json.RawMessage) (*Entry, json.RawMessage, error) {
	if !actor.Admin && actor.Type != market.ActorSystem {
		return nil, nil, market.Errorf(market.CodeForbidden, "admins only")
	}
	sp, ok := specs[name]
	if !ok {
		return nil, nil, market.NotFound("config key")
	}
	norm, msg := sp.check(value)
	if msg != "" {
		return nil, nil, market.Invalid(market.FieldError{Field: "value", Message: msg})
	}
	now := s.clock.Now()
	var entry Entry
	var previous json.RawMessage
	err := s.store.InTx(ctx, func(tx Tx) error {
		stored, err := tx.ConfigValues(ctx)
		if err != nil {
			return err
		}
		previous = effective(name, sp, stored).Value
		v := Stored{Key: name, Value: norm, UpdatedAt: now, UpdatedBy: actor.ID()}
		if err := tx.PutConfigValue(ctx, v); err != nil {
			return err
		}
		if err := tx.BumpConfigVersion(ctx); err != nil {
			return err
		}
		stored[name] = v
		entry = effective(name, sp, stored)
		return events.Record(ctx, tx, now, actor, "config.updated", "config", name, map[string]any{
			"key":      name,
			"value":    norm,
			"previous": previous,
		})
	})
	if err != nil {
		return nil, nil, err
	}
	s.changes.Add(1)
	return &entry, previous, nil
}

// Changes counts the changes made through this Service since start.
func (s *Service) Changes() int64 { return s.changes.Load() }

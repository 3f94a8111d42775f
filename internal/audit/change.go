package audit

import (
	"context"
	"maps"
	"sync"
)

// A change is audited once, in the entry of the request that made it
// (CONTRACT.md section 14: one entry per request, with its request id and
// the values before and after). The service that makes the change is the
// one that knows those values: it read the entity in its transaction. The
// router writes the entry once the answer is known. So the service notes
// the change in the request's context (NoteChange) and the router copies
// the note into the request's entry when the request succeeded. The areas
// reach NoteChange through a ChangeLog interface of their own, which Notes
// satisfies: they never import this package.

// Change is what one request changed.
type Change struct {
	// Before and After are the changed entity's relevant fields, the same
	// shape both times; Before is nil for a creation.
	Before, After any
	// Details is anything more the entry keeps: a reason, the ids a ban
	// revoked.
	Details map[string]any
}

// Changes holds the change noted while one request runs.
type Changes struct {
	mu     sync.Mutex
	change *Change
}

type changesKey struct{}

// WithChanges gives ctx a place for the change of the request it runs.
func WithChanges(ctx context.Context) (context.Context, *Changes) {
	cs := &Changes{}
	return context.WithValue(ctx, changesKey{}, cs), cs
}

// NoteChange records c as the change of the request running in ctx. The
// last note wins: a transaction that runs again notes its change again.
// Outside a request (a job, a test calling a service) it does nothing.
func NoteChange(ctx context.Context, c Change) {
	cs, _ := ctx.Value(changesKey{}).(*Changes)
	if cs == nil {
		return
	}
	c.Details = maps.Clone(c.Details)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.change = &c
}

// Notes notes changes in the request's context: the areas' ChangeLog
// (agents, listings, orders, admin/users), wired by the app.
type Notes struct{}

// NoteChange is NoteChange of Change{before, after, details}.
func (Notes) NoteChange(ctx context.Context, before, after any, details map[string]any) {
	NoteChange(ctx, Change{Before: before, After: after, Details: details})
}

// Details are the noted change as audit details ({before, after, ...}),
// nil when nothing was noted.
func (cs *Changes) Details() map[string]any {
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.change
	if c == nil {
		return nil
	}
	out := maps.Clone(c.Details)
	if out == nil {
		out = map[string]any{}
	}
	out["before"], out["after"] = c.Before, c.After
	return out
}

package events

import (
	"strings"
	"sync"
	"sync/atomic"

	"marketplace/internal/market"
)

// The names in an event's data are canonical, snake_case ("offer_id"), as
// the details of an error are; each surface spells them when it shows the
// event: camelCase on Variant A and to webhooks registered through it,
// snake_case on Variant B, to the tools and to /v1 webhooks. Events stored
// before the names were canonical carry camelCase names: spelling turns
// either casing into the one asked for, so those read as they always did.

// Spell is data with every map key, at any depth, in snake_case (snake)
// or camelCase. Data spelled so already comes back as it is, not copied
// (the common case: snake_case of an event recorded in canonical names),
// so a caller must not change what it gets.
func Spell(data map[string]any, snake bool) map[string]any {
	out, _ := spell(data, snake)
	return out
}

// spell is Spell, and whether it copied data.
func spell(data map[string]any, snake bool) (map[string]any, bool) {
	if !needs(data, snake) {
		return data, false
	}
	return respellMap(data, snake), true
}

// Canonical is data in canonical names, whichever casing it was stored
// in: what a domain reader of stored events reads.
func Canonical(data map[string]any) map[string]any { return Spell(data, true) }

// needs reports whether v has a map key not spelled as asked.
func needs(v any, snake bool) bool {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			if spellName(k, snake) != k || needs(x, snake) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if needs(x, snake) {
				return true
			}
		}
	}
	return false
}

// respell is v with its keys spelled: a copy where a key changes, at any
// depth, and v itself where none does.
func respell(v any, snake bool) any {
	if !needs(v, snake) {
		return v
	}
	switch t := v.(type) {
	case map[string]any:
		return respellMap(t, snake)
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = respell(x, snake)
		}
		return out
	}
	return v
}

// respellMap copies m with its keys spelled.
func respellMap(m map[string]any, snake bool) map[string]any {
	out := make(map[string]any, len(m))
	for k, x := range m {
		out[spellName(k, snake)] = respell(x, snake)
	}
	return out
}

// spellName is name in the casing asked for. A name that has nothing to
// change (no capital for snake_case, no underscore for camelCase) is
// answered without a look-up; the others come from a table of the names
// seen, so reading an event builds no strings once its names are known.
func spellName(name string, snake bool) string {
	if snake && !hasUpper(name) || !snake && strings.IndexByte(name, '_') < 0 {
		return name
	}
	t := &camelNames
	if snake {
		t = &snakeNames
	}
	if s, ok := (*t.m.Load())[name]; ok {
		return s
	}
	s := market.CamelName(name)
	if snake {
		s = market.SnakeName(name)
	}
	t.add(name, s)
	return s
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' || c >= 0x80 {
			return true
		}
	}
	return false
}

// nameTable maps names to their spelling. Readers load the map without a
// lock; a new name copies it. The names are the domain's (a few hundred at
// most), but data may nest maps keyed by other things: past maxNames the
// table stops growing and such names are spelled afresh each time.
type nameTable struct {
	mu sync.Mutex
	m  atomic.Pointer[map[string]string]
}

const maxNames = 2048

var camelNames, snakeNames nameTable

func init() {
	for _, t := range []*nameTable{&camelNames, &snakeNames} {
		t.m.Store(&map[string]string{})
	}
}

func (t *nameTable) add(name, spelled string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	old := *t.m.Load()
	if _, ok := old[name]; ok || len(old) >= maxNames {
		return
	}
	m := make(map[string]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[name] = spelled
	t.m.Store(&m)
}

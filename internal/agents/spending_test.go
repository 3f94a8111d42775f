package agents

import (
	"context"
	"slices"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// fakeTx is an agents Tx holding one owner's saved controls and spending
// in memory. Only the methods the spending code calls are implemented; any
// other call panics through the nil embedded interface.
type fakeTx struct {
	Tx
	saved      *Controls // nil: the owner never saved controls
	owner, key Spent
	calls      []string
	query      SpentQuery
	events     []string
}

func (f *fakeTx) LockUser(context.Context, string) error {
	f.calls = append(f.calls, "lock")
	return nil
}

func (f *fakeTx) Controls(context.Context, string) (*Controls, error) {
	f.calls = append(f.calls, "controls")
	if f.saved == nil {
		return nil, market.NotFound("spending controls")
	}
	c := *f.saved
	return &c, nil
}

func (f *fakeTx) PutControls(_ context.Context, _ string, c Controls, _ time.Time) error {
	f.calls = append(f.calls, "put")
	f.saved = &c
	return nil
}

func (f *fakeTx) SpendingSnapshot(_ context.Context, q SpentQuery) (*SpendingSnapshot, error) {
	f.query = q
	s := &SpendingSnapshot{Owner: f.owner, Key: f.key}
	if f.saved != nil {
		c := *f.saved
		s.Controls = &c
	}
	return s, nil
}

func (f *fakeTx) AppendEvent(_ context.Context, e *events.Event) error {
	f.events = append(f.events, e.Type)
	return nil
}

// fakeStore runs every transaction on one fakeTx.
type fakeStore struct{ tx *fakeTx }

func (s fakeStore) InTx(_ context.Context, fn func(Tx) error) error { return fn(s.tx) }
func (s fakeStore) Read() Tx                                        { return s.tx }

var spendingNow = time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)

func newFakeService(tx *fakeTx) *Service {
	return NewService(fakeStore{tx}, market.NewFixedClock(spendingNow), Options{})
}

// TestSpendingRemaining is GET /spending-controls' arithmetic (CONTRACT.md
// section 5): remaining = cap - spent per window, never below zero; for an
// agent whose key has caps of its own, the smaller of the owner's and the
// key's remaining. Spent is always the owner's total over all keys.
func TestSpendingRemaining(t *testing.T) {
	human := market.Actor{Type: market.ActorUser, UserID: "owner-1"}
	agent := market.Actor{Type: market.ActorAgent, UserID: "owner-1", KeyID: "key-1"}
	lowered := DefaultControls()
	lowered.Daily, lowered.Weekly = 1000, 2000
	cases := []struct {
		name       string
		actor      market.Actor
		key        *Key
		saved      *Controls
		owner, ks  Spent
		want       Remaining
		wantKeyCap bool
	}{
		{name: "a human on the defaults", actor: human, owner: Spent{Today: 1000, ThisWeek: 3000, ThisMonth: 7000},
			want: Remaining{Daily: 49000, Weekly: 197000, Monthly: 493000}},
		{name: "caps lowered below what was spent leave zero", actor: human, saved: &lowered,
			owner: Spent{Today: 1500, ThisWeek: 2500, ThisMonth: 2500}, want: Remaining{Daily: 0, Weekly: 0, Monthly: 497500}},
		{name: "an agent whose key has no caps sees the owner's", actor: agent, key: &Key{ID: "key-1"},
			owner: Spent{Today: 1000, ThisWeek: 1000, ThisMonth: 1000}, ks: Spent{Today: 999999},
			want: Remaining{Daily: 49000, Weekly: 199000, Monthly: 499000}},
		{name: "a key's tighter daily cap", actor: agent, key: &Key{ID: "key-1", Limits: Limits{Daily: cents(500)}},
			owner: Spent{Today: 1000, ThisWeek: 1000, ThisMonth: 1000}, ks: Spent{Today: 200, ThisWeek: 200, ThisMonth: 200},
			want: Remaining{Daily: 300, Weekly: 199000, Monthly: 499000}, wantKeyCap: true},
		{name: "a key's looser cap leaves the owner's", actor: agent,
			key:   &Key{ID: "key-1", Limits: Limits{Monthly: cents(1_000_000)}},
			owner: Spent{Today: 1000, ThisWeek: 1000, ThisMonth: 1000}, ks: Spent{ThisMonth: 10},
			want: Remaining{Daily: 49000, Weekly: 199000, Monthly: 499000}, wantKeyCap: true},
		{name: "a key cap spent past leaves zero", actor: agent,
			key:   &Key{ID: "key-1", Limits: Limits{Weekly: cents(100)}},
			owner: Spent{ThisWeek: 300, ThisMonth: 300}, ks: Spent{ThisWeek: 300, ThisMonth: 300},
			want: Remaining{Daily: 50000, Weekly: 0, Monthly: 499700}, wantKeyCap: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeTx{saved: c.saved, owner: c.owner, key: c.ks}
			st, err := newFakeService(tx).Spending(t.Context(), c.actor, c.key)
			if err != nil {
				t.Fatal(err)
			}
			if st.Remaining != c.want {
				t.Fatalf("remaining %+v, want %+v", st.Remaining, c.want)
			}
			if st.Spent != c.owner {
				t.Fatalf("spent %+v, want the owner's %+v", st.Spent, c.owner)
			}
			if (st.KeyLimits != nil) != c.wantKeyCap {
				t.Fatalf("KeyLimits %+v, want set: %v", st.KeyLimits, c.wantKeyCap)
			}
			wantQueryKey := ""
			if c.wantKeyCap {
				wantQueryKey = c.key.ID
			}
			day, week, month := Windows(spendingNow)
			want := SpentQuery{UserID: "owner-1", KeyID: wantQueryKey, DayStart: day, WeekStart: week, MonthStart: month,
				Now: spendingNow}
			if tx.query != want {
				t.Fatalf("query %+v, want %+v", tx.query, want)
			}
		})
	}
	t.Run("an agent must come with its own key", func(t *testing.T) {
		s := newFakeService(&fakeTx{})
		for _, k := range []*Key{nil, {ID: "key-2"}} {
			if _, err := s.Spending(t.Context(), agent, k); market.CodeOf(err) != market.CodeInternal {
				t.Fatalf("key %+v: %v, want INTERNAL_ERROR", k, err)
			}
		}
	})
}

// TestUpdateControls covers who may change the controls, the range of each
// cap and of the approval threshold, and how a partial update merges into
// what was saved (or the defaults), with the owner locked first.
func TestUpdateControls(t *testing.T) {
	human := market.Actor{Type: market.ActorUser, UserID: "owner-1"}
	threshold := int64(7000)
	saved := DefaultControls()
	saved.Daily, saved.ApprovalThreshold, saved.CategoryRestrictions = 1234, &threshold, []string{"watches"}
	cats := func(v ...string) *[]string { return &v }
	cases := []struct {
		name       string
		saved      *Controls
		upd        ControlsUpdate
		wantFields []string
		want       func() Controls
	}{
		{name: "caps below zero or above the maximum",
			upd:        ControlsUpdate{PerTransaction: cents(-1), Daily: cents(MaxLimit + 1), Weekly: cents(0), Monthly: cents(MaxLimit)},
			wantFields: []string{"daily_limit", "per_transaction_limit"}},
		{name: "an approval threshold of zero", upd: ControlsUpdate{ApprovalThreshold: cents(0)},
			wantFields: []string{"approval_threshold"}},
		{name: "an approval threshold above the maximum", upd: ControlsUpdate{ApprovalThreshold: cents(MaxLimit + 1)},
			wantFields: []string{"approval_threshold"}},
		{name: "a blank category", upd: ControlsUpdate{CategoryRestrictions: cats("shoes", "  ")},
			wantFields: []string{"category_restrictions"}},
		{name: "one field over the defaults", upd: ControlsUpdate{Daily: cents(0)}, want: func() Controls {
			c := DefaultControls()
			c.Daily = 0
			return c
		}},
		{name: "the edges of the ranges", upd: ControlsUpdate{Monthly: cents(MaxLimit), ApprovalThreshold: cents(1)},
			want: func() Controls {
				c := DefaultControls()
				c.Monthly, c.ApprovalThreshold = MaxLimit, cents(1)
				return c
			}},
		{name: "one field over saved controls", saved: &saved, upd: ControlsUpdate{Weekly: cents(9)}, want: func() Controls {
			c := saved
			c.Weekly = 9
			return c
		}},
		{name: "clearing the approval threshold", saved: &saved, upd: ControlsUpdate{ClearApproval: true}, want: func() Controls {
			c := saved
			c.ApprovalThreshold = nil
			return c
		}},
		{name: "categories trimmed, repeats dropped whatever their case", saved: &saved,
			upd: ControlsUpdate{CategoryRestrictions: cats(" Shoes", "shoes", "bags ", "SHOES")}, want: func() Controls {
				c := saved
				c.CategoryRestrictions = []string{"Shoes", "bags"}
				return c
			}},
		{name: "an empty list lifts every restriction", saved: &saved, upd: ControlsUpdate{CategoryRestrictions: cats()},
			want: func() Controls {
				c := saved
				c.CategoryRestrictions = []string{}
				return c
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeTx{saved: c.saved}
			st, err := newFakeService(tx).UpdateControls(t.Context(), human, c.upd)
			if c.wantFields != nil {
				e := market.ErrorOf(err)
				var got []string
				for _, f := range e.Fields {
					got = append(got, f.Field)
				}
				slices.Sort(got)
				if e.Code != market.CodeValidation || !slices.Equal(got, c.wantFields) {
					t.Fatalf("%v fields %v, want VALIDATION_ERROR on %v", err, got, c.wantFields)
				}
				if len(tx.calls) != 0 {
					t.Fatalf("a refused update reached the store: %v", tx.calls)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := c.want()
			got := *tx.saved
			if got.PerTransaction != want.PerTransaction || got.Daily != want.Daily || got.Weekly != want.Weekly ||
				got.Monthly != want.Monthly || !slices.Equal(got.CategoryRestrictions, want.CategoryRestrictions) ||
				(got.ApprovalThreshold == nil) != (want.ApprovalThreshold == nil) ||
				got.ApprovalThreshold != nil && *got.ApprovalThreshold != *want.ApprovalThreshold {
				t.Fatalf("saved %+v, want %+v", got, want)
			}
			if st.Controls.Daily != want.Daily {
				t.Fatalf("answered controls %+v, want the saved ones", st.Controls)
			}
			if !slices.Equal(tx.calls, []string{"lock", "controls", "put"}) {
				t.Fatalf("calls %v, want the owner locked before the read", tx.calls)
			}
			if !slices.Equal(tx.events, []string{"spending_controls.updated"}) {
				t.Fatalf("events %v", tx.events)
			}
		})
	}
	t.Run("agents read but never write", func(t *testing.T) {
		tx := &fakeTx{}
		agent := market.Actor{Type: market.ActorAgent, UserID: "owner-1", KeyID: "key-1"}
		if _, err := newFakeService(tx).UpdateControls(t.Context(), agent, ControlsUpdate{Daily: cents(1)}); market.CodeOf(err) != market.CodeForbidden {
			t.Fatalf("%v, want FORBIDDEN", err)
		}
		if len(tx.calls) != 0 {
			t.Fatalf("calls %v", tx.calls)
		}
	})
}

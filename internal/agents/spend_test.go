package agents

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// fakeSpendTx is a SpendTx that answers one snapshot and records what it
// was asked, in order.
type fakeSpendTx struct {
	snap    SpendingSnapshot
	lockErr error
	calls   []string
	locked  string
	query   SpentQuery

	keys      map[string]*Key
	purchases int // the key's purchases in the last hour
	audit     []systemAudit
	events    []*events.Event
}

func (f *fakeSpendTx) LockUser(_ context.Context, userID string) error {
	f.calls = append(f.calls, "lock")
	f.locked = userID
	return f.lockErr
}

func (f *fakeSpendTx) SpendingSnapshot(_ context.Context, q SpentQuery) (*SpendingSnapshot, error) {
	f.calls = append(f.calls, "snapshot")
	f.query = q
	s := f.snap
	return &s, nil
}

// The key as the fake's store holds it: active unless keys says otherwise.
func (f *fakeSpendTx) KeyByID(_ context.Context, id string) (*Key, error) {
	if k, ok := f.keys[id]; ok {
		c := *k
		return &c, nil
	}
	return &Key{ID: id, Status: KeyActive}, nil
}

func (f *fakeSpendTx) UpdateKey(_ context.Context, k *Key) error {
	if f.keys == nil {
		f.keys = map[string]*Key{}
	}
	c := *k
	f.keys[k.ID] = &c
	return nil
}

// systemAudit is one AppendSystemAudit call.
type systemAudit struct {
	action, entityType, entityID, requestID string
	details                                 map[string]any
}

func (f *fakeSpendTx) AppendSystemAudit(_ context.Context, _ time.Time, action, entityType, entityID, requestID string, details map[string]any) error {
	f.audit = append(f.audit, systemAudit{action, entityType, entityID, requestID, details})
	return nil
}

func (f *fakeSpendTx) AppendEvent(_ context.Context, e *events.Event) error {
	f.events = append(f.events, e)
	return nil
}

func (f *fakeSpendTx) KeyPurchasesSince(context.Context, string, time.Time) (int, error) {
	return f.purchases, nil
}

func cents(n int64) *int64 { return &n }

// spendRefusal is what a SPENDING_LIMIT_EXCEEDED says (details of CONTRACT.md
// section 2); a zero value means the check passes.
type spendRefusal struct {
	kind             string
	limit, remaining int64
}

// TestCheckSpendCaps runs the caps of CONTRACT.md section 5 on totalCharged:
// the owner's per-transaction, daily, weekly and monthly caps over all keys,
// a key's own tighter caps on top, the amount exactly at a cap passing and
// one cent more refused, and which cap is reported when several fail.
func TestCheckSpendCaps(t *testing.T) {
	def := DefaultControls()
	custom := func(per, daily, weekly, monthly int64) *Controls {
		c := Controls{PerTransaction: per, Daily: daily, Weekly: weekly, Monthly: monthly, CategoryRestrictions: []string{}}
		return &c
	}
	cases := []struct {
		name     string
		controls *Controls // nil: the defaults
		limits   Limits    // the key's own caps
		owner    Spent
		key      Spent
		amount   int64
		want     spendRefusal
	}{
		{name: "defaults: exactly the per-transaction cap passes", amount: def.PerTransaction},
		{name: "defaults: a cent over the per-transaction cap", amount: def.PerTransaction + 1,
			want: spendRefusal{"per_transaction", 10000, 10000}},
		{name: "daily: the purchase that fills the day passes", owner: Spent{Today: 45000, ThisWeek: 45000, ThisMonth: 45000},
			amount: 5000},
		{name: "daily: a cent more is refused", owner: Spent{Today: 45000, ThisWeek: 45000, ThisMonth: 45000},
			amount: 5001, want: spendRefusal{"daily", 50000, 5000}},
		{name: "weekly: fills the week", owner: Spent{ThisWeek: 195000, ThisMonth: 195000}, amount: 5000},
		{name: "weekly: a cent more", owner: Spent{ThisWeek: 195000, ThisMonth: 195000}, amount: 5001,
			want: spendRefusal{"weekly", 200000, 5000}},
		{name: "monthly: fills the month", owner: Spent{ThisMonth: 495000}, amount: 5000},
		{name: "monthly: a cent more", owner: Spent{ThisMonth: 495000}, amount: 5001,
			want: spendRefusal{"monthly", 500000, 5000}},
		{name: "per-transaction is reported before daily", owner: Spent{Today: 49000, ThisWeek: 49000, ThisMonth: 49000},
			amount: 10001, want: spendRefusal{"per_transaction", 10000, 10000}},
		{name: "daily is reported before monthly", owner: Spent{Today: 45000, ThisWeek: 45000, ThisMonth: 499000},
			amount: 6000, want: spendRefusal{"daily", 50000, 5000}},
		{name: "weekly is reported before monthly", owner: Spent{ThisWeek: 199000, ThisMonth: 499500},
			amount: 2000, want: spendRefusal{"weekly", 200000, 1000}},
		{name: "a cap lowered below what was spent leaves nothing", controls: custom(10000, 1000, 200000, 500000),
			owner: Spent{Today: 3000, ThisWeek: 3000, ThisMonth: 3000}, amount: 1, want: spendRefusal{"daily", 1000, 0}},
		{name: "a zero cap refuses every purchase", controls: custom(0, 50000, 200000, 500000), amount: 1,
			want: spendRefusal{"per_transaction", 0, 0}},
		{name: "key per-transaction cap tighter than the owner's", limits: Limits{PerTransaction: cents(500)}, amount: 501,
			want: spendRefusal{"per_transaction", 500, 500}},
		{name: "key per-transaction cap: exactly at it", limits: Limits{PerTransaction: cents(500)}, amount: 500},
		{name: "key daily cap counts the key's own spending", limits: Limits{Daily: cents(1000)},
			owner: Spent{Today: 900, ThisWeek: 900, ThisMonth: 900}, key: Spent{Today: 900, ThisWeek: 900, ThisMonth: 900},
			amount: 101, want: spendRefusal{"daily", 1000, 100}},
		{name: "key daily cap ignores the other keys' spending", limits: Limits{Daily: cents(1000)},
			owner: Spent{Today: 40000, ThisWeek: 40000, ThisMonth: 40000}, key: Spent{Today: 100, ThisWeek: 100, ThisMonth: 100},
			amount: 900},
		{name: "owner and key both over: the one with less left is reported", limits: Limits{Daily: cents(5000)},
			owner: Spent{Today: 49000, ThisWeek: 49000, ThisMonth: 49000}, key: Spent{Today: 4500, ThisWeek: 4500, ThisMonth: 4500},
			amount: 1500, want: spendRefusal{"daily", 5000, 500}},
		{name: "owner and key both over: the owner has less left", limits: Limits{Daily: cents(5000)},
			owner: Spent{Today: 49800, ThisWeek: 49800, ThisMonth: 49800}, key: Spent{Today: 4000, ThisWeek: 4000, ThisMonth: 4000},
			amount: 1500, want: spendRefusal{"daily", 50000, 200}},
		{name: "a looser key cap does not lift the owner's", limits: Limits{Weekly: cents(1_000_000)},
			owner: Spent{ThisWeek: 199000, ThisMonth: 199000}, amount: 1001, want: spendRefusal{"weekly", 200000, 1000}},
		{name: "key weekly and monthly caps", limits: Limits{Weekly: cents(3000), Monthly: cents(2500)},
			key: Spent{ThisWeek: 2000, ThisMonth: 2000}, amount: 600, want: spendRefusal{"monthly", 2500, 500}},
		{name: "a key without caps is not counted on its own", limits: Limits{},
			key: Spent{Today: 1_000_000, ThisWeek: 1_000_000, ThisMonth: 1_000_000}, amount: 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeSpendTx{snap: SpendingSnapshot{Controls: c.controls, Owner: c.owner, Key: c.key}}
			key := &Key{ID: "key-1", Limits: c.limits}
			v, err := CheckSpend(t.Context(), tx, time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC),
				SpendRequest{OwnerID: "owner-1", Key: key, Amount: c.amount})
			if c.want == (spendRefusal{}) {
				if err != nil || v.NeedsApproval {
					t.Fatalf("CheckSpend(%d) = %+v, %v; want it to pass", c.amount, v, err)
				}
				return
			}
			e := market.ErrorOf(err)
			if e.Code != market.CodeSpendingLimitExceeded {
				t.Fatalf("CheckSpend(%d) = %v; want SPENDING_LIMIT_EXCEEDED", c.amount, err)
			}
			d := e.Details
			got := spendRefusal{kind: d["limit_type"].(string), limit: d["limit"].(int64), remaining: d["remaining"].(int64)}
			if got != c.want || d["requested_amount"] != c.amount {
				t.Fatalf("refusal %+v (requested %v), want %+v (requested %d)", got, d["requested_amount"], c.want, c.amount)
			}
		})
	}
}

// TestCheckSpendApprovalAndCategories covers what comes around the caps: a
// restricted category refuses before any cap, the approval threshold asks
// for approval only strictly above it and only once the caps pass, and an
// approved purchase is not asked again.
func TestCheckSpendApprovalAndCategories(t *testing.T) {
	withThreshold := func(n int64) *Controls {
		c := DefaultControls()
		c.ApprovalThreshold = &n
		return &c
	}
	restricted := DefaultControls()
	restricted.CategoryRestrictions = []string{"sneakers", "cat-watches"}
	inWatches := func(r string) bool { return r == "cat-watches" }
	cases := []struct {
		name       string
		controls   *Controls
		amount     int64
		approved   bool
		inCategory func(string) bool
		owner      Spent
		wantCode   market.Code
		wantAsk    bool
	}{
		{name: "no threshold: never asks", amount: 10000},
		{name: "at the threshold: no approval", controls: withThreshold(5000), amount: 5000},
		{name: "a cent above the threshold: approval", controls: withThreshold(5000), amount: 5001, wantAsk: true},
		{name: "approved already: not asked again", controls: withThreshold(5000), amount: 5001, approved: true},
		{name: "caps refuse before approval is asked", controls: withThreshold(5000), amount: 10001,
			wantCode: market.CodeSpendingLimitExceeded},
		{name: "an approved purchase still meets the caps", controls: withThreshold(5000), amount: 6000, approved: true,
			owner: Spent{Today: 45000, ThisWeek: 45000, ThisMonth: 45000}, wantCode: market.CodeSpendingLimitExceeded},
		{name: "a restricted category", controls: &restricted, amount: 100, inCategory: inWatches,
			wantCode: market.CodeCategoryRestricted},
		{name: "a restricted category refuses before the caps", controls: &restricted, amount: 10001, inCategory: inWatches,
			wantCode: market.CodeCategoryRestricted},
		{name: "another category passes", controls: &restricted, amount: 100, inCategory: func(string) bool { return false }},
		{name: "no category test: restrictions cannot match", controls: &restricted, amount: 100},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeSpendTx{snap: SpendingSnapshot{Controls: c.controls, Owner: c.owner}}
			v, err := CheckSpend(t.Context(), tx, time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC), SpendRequest{
				OwnerID: "owner-1", Key: &Key{ID: "key-1"}, Amount: c.amount, InCategory: c.inCategory, Approved: c.approved})
			if got := market.CodeOf(err); got != c.wantCode {
				t.Fatalf("code %q (%v), want %q", got, err, c.wantCode)
			}
			if v.NeedsApproval != c.wantAsk {
				t.Fatalf("NeedsApproval = %v, want %v", v.NeedsApproval, c.wantAsk)
			}
			if c.wantAsk && v.Threshold != *c.controls.ApprovalThreshold {
				t.Fatalf("Threshold = %d, want %d", v.Threshold, *c.controls.ApprovalThreshold)
			}
			if c.wantCode == market.CodeCategoryRestricted {
				d := market.ErrorOf(err).Details
				if d["category"] != "cat-watches" {
					t.Fatalf("details %v, want the restriction that matched", d)
				}
			}
		})
	}
}

// TestCheckSpendQuery checks what CheckSpend asks the store: the owner is
// locked before spending is read (so concurrent purchases are checked one
// after another), the windows are those of the purchase's instant, and the
// key's own spending is read only when the key has caps of its own.
func TestCheckSpendQuery(t *testing.T) {
	now := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC) // a Wednesday, the first of the month
	for _, c := range []struct {
		name    string
		key     *Key
		wantKey string
	}{
		{"a key with caps", &Key{ID: "key-1", Limits: Limits{Monthly: cents(1)}}, "key-1"},
		{"a key without caps", &Key{ID: "key-1"}, ""},
		{"no key", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeSpendTx{}
			if _, err := CheckSpend(t.Context(), tx, now, SpendRequest{OwnerID: "owner-1", Key: c.key, Amount: 1}); err != nil {
				t.Fatal(err)
			}
			want := SpentQuery{UserID: "owner-1", KeyID: c.wantKey,
				DayStart:   time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
				WeekStart:  time.Date(2026, 6, 29, 0, 0, 0, 0, time.UTC),
				MonthStart: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), Now: now}
			if tx.query != want {
				t.Fatalf("query %+v, want %+v", tx.query, want)
			}
			if !slices.Equal(tx.calls, []string{"lock", "snapshot"}) || tx.locked != "owner-1" {
				t.Fatalf("calls %v on %q, want the owner locked before the snapshot", tx.calls, tx.locked)
			}
		})
	}
	t.Run("a failed lock reads nothing", func(t *testing.T) {
		boom := errors.New("boom")
		tx := &fakeSpendTx{lockErr: boom}
		if _, err := CheckSpend(t.Context(), tx, now, SpendRequest{OwnerID: "owner-1", Amount: 1}); !errors.Is(err, boom) {
			t.Fatalf("err %v, want the lock's", err)
		}
		if !slices.Equal(tx.calls, []string{"lock"}) {
			t.Fatalf("calls %v", tx.calls)
		}
	})
}

// Open offers' reservations count in every window, for the owner and for a
// key with caps of its own, and the remaining amount reported leaves them out.
func TestCheckSpendCountsReservations(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	daily := int64(3000)
	key := &Key{ID: "key-1", Limits: Limits{Daily: &daily}}
	for _, c := range []struct {
		name                string
		snap                SpendingSnapshot
		amount              int64
		wantType            string
		wantRemaining       int64
		wantExcludeOfferID  string
		excludeOfferRequest string
		key                 *Key
	}{
		{name: "owner reservation fills the daily cap", snap: SpendingSnapshot{Owner: Spent{Today: 20000, ThisWeek: 20000, ThisMonth: 20000}, OwnerReserved: 25000},
			amount: 6000, wantType: "daily", wantRemaining: 5000},
		{name: "owner reservation under the cap", snap: SpendingSnapshot{OwnerReserved: 40000}, amount: 10000},
		{name: "key reservation fills the key's cap", snap: SpendingSnapshot{KeyReserved: 2500}, amount: 600, wantType: "daily", wantRemaining: 500, key: key},
		{name: "the offer being bought is left out", snap: SpendingSnapshot{}, amount: 3000, excludeOfferRequest: "offer-1", wantExcludeOfferID: "offer-1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tx := &fakeSpendTx{snap: c.snap}
			_, err := CheckSpend(t.Context(), tx, now, SpendRequest{OwnerID: "owner-1", Key: c.key, Amount: c.amount, ExcludeOfferID: c.excludeOfferRequest})
			if tx.query.ExcludeOfferID != c.wantExcludeOfferID || !tx.query.Now.Equal(now) {
				t.Fatalf("query %+v", tx.query)
			}
			if c.wantType == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var me *market.Error
			if !errors.As(err, &me) || me.Code != market.CodeSpendingLimitExceeded || me.Details["limit_type"] != c.wantType ||
				me.Details["remaining"] != c.wantRemaining {
				t.Fatalf("err = %v (%+v)", err, me)
			}
		})
	}
}

// TestCheckSpendVelocity: with max purchases an hour, the purchase that is
// max+1 passes and freezes the key (purchase_velocity) with a system audit
// entry and the owner's event; at max nothing happens. A frozen or revoked
// key is refused whatever the snapshot says.
func TestCheckSpendVelocity(t *testing.T) {
	now := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	const max = 3
	for _, c := range []struct {
		before int
		freeze bool
	}{{0, false}, {max - 1, false}, {max, true}, {max + 5, true}} {
		tx := &fakeSpendTx{purchases: c.before, keys: map[string]*Key{"key-1": {ID: "key-1", UserID: "owner-1", Status: KeyActive}}}
		_, err := CheckSpend(t.Context(), tx, now, SpendRequest{OwnerID: "owner-1", Key: &Key{ID: "key-1"}, Amount: 1, MaxPurchasesPerHour: max})
		if err != nil {
			t.Fatalf("%d before: %v, want the purchase to pass", c.before, err)
		}
		k := tx.keys["key-1"]
		if frozen := k.Status == KeyFrozen; frozen != c.freeze {
			t.Fatalf("%d before: key %s, want frozen %v", c.before, k.Status, c.freeze)
		}
		if !c.freeze {
			if len(tx.audit)+len(tx.events) != 0 {
				t.Fatalf("%d before: audit %v events %v, want none", c.before, tx.audit, tx.events)
			}
			continue
		}
		if k.FrozenReason != FrozenPurchaseVelocity || len(tx.audit) != 1 || tx.audit[0].action != "agent_key.freeze" ||
			tx.audit[0].entityID != "key-1" || tx.audit[0].details["frozenReason"] != string(FrozenPurchaseVelocity) ||
			len(tx.events) != 1 || tx.events[0].Type != "agent_key.frozen" {
			t.Fatalf("%d before: reason %q audit %+v events %+v", c.before, k.FrozenReason, tx.audit, tx.events)
		}
	}
	for status, code := range map[KeyStatus]market.Code{KeyFrozen: market.CodeAgentFrozen, KeyRevoked: market.CodeInvalidAgentKey} {
		tx := &fakeSpendTx{keys: map[string]*Key{"key-1": {ID: "key-1", Status: status}}}
		_, err := CheckSpend(t.Context(), tx, now, SpendRequest{OwnerID: "owner-1", Key: &Key{ID: "key-1", Status: KeyActive}, Amount: 1})
		if market.CodeOf(err) != code {
			t.Errorf("key %s (authenticated as active): %v, want %s", status, err, code)
		}
	}
}

package api

import (
	"testing"

	"marketplace/internal/agents"
)

// TestKeyView pins the rules of an agent key's view, which both variants
// and the admin pages show through KeyOf (each once had its own copy): the
// frozen reason shows while the key is frozen only, the secret in the
// answer that creates the key only, and the scope in the words of the
// surface (Variant B's short ones); key_id repeats the id.
func TestKeyView(t *testing.T) {
	five := int64(500)
	for _, c := range []struct {
		name       string
		status     agents.KeyStatus
		reason     agents.FrozenReason
		casing     Casing
		wantReason string // "" for none
		wantScope  string
	}{
		{name: "frozen by its owner", status: agents.KeyFrozen, reason: agents.FrozenByOwner, casing: Camel, wantReason: "owner", wantScope: "buy_only"},
		{name: "frozen, on Variant B", status: agents.KeyFrozen, reason: agents.FrozenPurchaseVelocity, casing: Snake, wantReason: "purchase_velocity", wantScope: "buy"},
		{name: "unfrozen since", status: agents.KeyActive, reason: agents.FrozenByAdmin, casing: Camel, wantScope: "buy_only"},
		{name: "revoked while frozen", status: agents.KeyRevoked, reason: agents.FrozenRateLimitAbuse, casing: Snake, wantScope: "buy"},
		{name: "frozen with no reason recorded", status: agents.KeyFrozen, casing: Camel, wantScope: "buy_only"},
	} {
		k := &agents.Key{ID: "k1", Prefix: "mk_test_ab", Scope: agents.ScopeBuy, Status: c.status, FrozenReason: c.reason,
			Limits: agents.Limits{Daily: &five}}
		v := KeyOf(k, c.casing)
		got := ""
		if v.FrozenReason != nil {
			got = *v.FrozenReason
		}
		if got != c.wantReason {
			t.Errorf("%s: frozen reason %q, want %q", c.name, got, c.wantReason)
		}
		if v.Scope != c.wantScope || v.KeyID != k.ID || v.Key != "" {
			t.Errorf("%s: scope %q key_id %q secret %q", c.name, v.Scope, v.KeyID, v.Key)
		}
		if v.SpendingControls == nil || *v.SpendingControls.DailyLimit != 500 || v.SpendingControls.WeeklyLimit != nil {
			t.Errorf("%s: caps %+v", c.name, v.SpendingControls)
		}
	}
	// The secret is in the creating answer only.
	nk := &agents.NewKey{Key: agents.Key{ID: "k2", Scope: agents.ScopeSell, Status: agents.KeyActive}, Secret: "mk_test_secret"}
	if v := NewKeyOf(nk, Snake); v.Key != "mk_test_secret" || v.Scope != "sell" {
		t.Errorf("new key: %+v", v)
	}
	if KeysOf([]agents.Key{nk.Key}, Camel)[0].Key != "" {
		t.Error("a listed key carries its secret")
	}
	// A key without caps shows null, not an object of nulls.
	if v := KeyOf(&nk.Key, Camel); v.SpendingControls != nil {
		t.Errorf("no caps: %+v", v.SpendingControls)
	}
}

// TestSpendingViews pins that Variant A's nested spending status and
// Variant B's flat one carry the same figures, and that the key's own
// caps appear only when the key has some.
func TestSpendingViews(t *testing.T) {
	per, th := int64(700), int64(900)
	st := &agents.SpendingStatus{
		Controls: agents.Controls{PerTransaction: 1000, Daily: 5000, Weekly: 20000, Monthly: 50000,
			CategoryRestrictions: []string{"c1"}, ApprovalThreshold: &th},
		KeyLimits: &agents.Limits{PerTransaction: &per},
		Spent:     agents.Spent{Today: 1, ThisWeek: 2, ThisMonth: 3},
		Remaining: agents.Remaining{Daily: 4, Weekly: 5, Monthly: 6}, ReservedForOffers: 7,
	}
	v := SpendingOf(st)
	f := v.Flat()
	if f.PerTransactionLimit != 1000 || f.MonthlyLimit != 50000 || f.CategoryRestrictions[0] != "c1" || *f.ApprovalThreshold != 900 ||
		f.SpentToday != 1 || f.SpentThisWeek != 2 || f.SpentThisMonth != 3 ||
		f.DailyRemaining != 4 || f.WeeklyRemaining != 5 || f.MonthlyRemaining != 6 || f.ReservedForOffers != 7 ||
		*f.KeyLimits.PerTransactionLimit != 700 {
		t.Errorf("flat = %+v", f)
	}
	if v.Controls.ApprovalThreshold != f.ApprovalThreshold || v.Controls.DailyLimit != f.DailyLimit || v.Spent.ThisMonth != 3 || v.Remaining.Monthly != 6 || v.KeyLimits != f.KeyLimits {
		t.Errorf("nested = %+v", v)
	}
	st.KeyLimits = nil
	if v := SpendingOf(st); v.KeyLimits != nil || v.Flat().KeyLimits != nil {
		t.Errorf("no key caps: %+v", v.KeyLimits)
	}
}

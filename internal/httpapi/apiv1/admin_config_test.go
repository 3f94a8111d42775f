package apiv1_test

import (
	"bytes"
	"context"
	"marketplace/internal/settings"
	"net/http"
	"testing"

	"marketplace/internal/store"
	"marketplace/internal/store/storetest"
	"marketplace/internal/testkit"
)

// twoReplicas starts two service instances on one database, as two replicas
// behind a load balancer.
func twoReplicas(t *testing.T, fn func(t *testing.T, one, two *testkit.Server)) {
	storetest.Run(t, func(t *testing.T, db *store.DB) {
		fn(t, testkit.Start(t, db, testkit.Options{}), testkit.Start(t, db, testkit.Options{}))
	})
}

func findKey(t *testing.T, list []any, key string) map[string]any {
	t.Helper()
	for _, e := range list {
		if m := e.(map[string]any); m["key"] == key {
			return m
		}
	}
	t.Fatalf("no %s in %v", key, list)
	return nil
}

// A config change made through one replica holds on the other's next
// request; values are type and range checked, and audited before and after.
func TestAdminConfig(t *testing.T) {
	t.Parallel()
	twoReplicas(t, func(t *testing.T, one, two *testkit.Server) {
		ctx := context.Background()
		adm := one.Admin()
		list := two.Do("GET", "/api/v1/admin/config", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		for _, k := range settings.Names() {
			findKey(t, list, k)
		}
		fee := findKey(t, list, settings.BuyerFeeRateBps.Name())
		if fee["value"] != float64(350) || fee["updatedAt"] != nil || fee["updatedBy"] != nil || fee["description"] == "" {
			t.Fatalf("default fee entry = %v", fee)
		}
		// The second replica has its cache warm, and prices a purchase with
		// the default rate.
		if n, err := two.App.Settings.Int(ctx, settings.BuyerFeeRateBps); err != nil || n != 350 {
			t.Fatalf("replica two reads %d, %v", n, err)
		}
		seller := one.VerifiedOwner("config-seller")
		shopper := one.NewShopper("config-buyer", "pm_card_visa")
		listing := one.ActiveListing(seller, "walnut cutting board end grain large", 10000)
		estimate := func() any {
			t.Helper()
			return two.Do("POST", "/api/v1/agent/purchase/fee-estimate", map[string]any{"listingId": listing, "buyerZip": "97201"},
				shopper.Key.Auth()).Want(t, http.StatusOK, "").Data()["serviceFee"]
		}
		if fee := estimate(); fee != float64(350) {
			t.Fatalf("replica two's service fee %v, want 350", fee)
		}

		got := one.Do("PATCH", "/api/v1/admin/config/"+settings.BuyerFeeRateBps.Name(), map[string]any{"value": 500}, adm.Auth()).
			Want(t, http.StatusOK, "").Data()
		if got["value"] != float64(500) || got["updatedBy"] != adm.ID || got["updatedAt"] == nil {
			t.Fatalf("patched = %v", got)
		}
		one.Do("PATCH", "/api/v1/admin/config/"+settings.PayoutHoldHours.Name(), map[string]any{"value": 24}, adm.Auth()).Want(t, http.StatusOK, "")
		// Replica two, next request: the new values.
		if fee := estimate(); fee != float64(500) {
			t.Fatalf("replica two's service fee after the change %v, want 500", fee)
		}
		if n, err := two.App.Settings.Int(ctx, settings.BuyerFeeRateBps); err != nil || n != 500 {
			t.Fatalf("replica two reads fee %d, %v after the change", n, err)
		}
		if n, err := two.App.Settings.Int(ctx, settings.PayoutHoldHours); err != nil || n != 24 {
			t.Fatalf("replica two reads hold hours %d, %v after the change", n, err)
		}
		list = two.Do("GET", "/api/v1/admin/config", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if v := findKey(t, list, settings.BuyerFeeRateBps.Name())["value"]; v != float64(500) {
			t.Fatalf("replica two lists fee %v", v)
		}
		one.Do("PATCH", "/api/v1/admin/config/"+settings.RestrictedBrands.Name(), map[string]any{"value": []string{"Acme"}}, adm.Auth()).
			Want(t, http.StatusOK, "")
		if b, err := two.App.Settings.Strings(ctx, settings.RestrictedBrands); err != nil || len(b) != 1 || b[0] != "Acme" {
			t.Fatalf("replica two reads brands %v, %v", b, err)
		}

		// Type and range.
		for _, c := range []struct {
			key   string
			value any
		}{
			{settings.BuyerFeeRateBps.Name(), "500"}, {settings.BuyerFeeRateBps.Name(), 10001}, {settings.BuyerFeeRateBps.Name(), -1},
			{settings.BuyerFeeRateBps.Name(), 3.5}, {settings.PayoutHoldHours.Name(), 2161}, {settings.OfferMaxRounds.Name(), 0},
			{settings.HoldNewSellers.Name(), 1}, {settings.RestrictedBrands.Name(), "Acme"},
			{settings.RestrictedBrands.Name(), []string{"a", "A"}}, {settings.BuyerFeeRateBps.Name(), nil},
		} {
			r := one.Do("PATCH", "/api/v1/admin/config/"+c.key, map[string]any{"value": c.value}, adm.Auth())
			r.Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		}
		one.Do("PATCH", "/api/v1/admin/config/"+settings.BuyerFeeRateBps.Name(), map[string]any{}, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		one.Do("PATCH", "/api/v1/admin/config/no.such.key", map[string]any{"value": 1}, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		if n, _ := two.App.Settings.Int(ctx, settings.BuyerFeeRateBps); n != 500 {
			t.Fatalf("a refused change moved the fee to %d", n)
		}

		// Audited with before and after.
		a := one.Do("GET", "/api/v1/admin/audit/entity/config/"+settings.BuyerFeeRateBps.Name()+"?result=allowed", nil, adm.Auth()).
			Want(t, http.StatusOK, "").List()
		if len(a) != 1 {
			t.Fatalf("%d allowed audit entries for the fee", len(a))
		}
		e := a[0].(map[string]any)
		d := e["details"].(map[string]any)
		if d["before"] != float64(350) || d["after"] != float64(500) || e["actorId"] != adm.ID || e["actorType"] != "admin" {
			t.Fatalf("audit entry = %v", e)
		}
		refused := one.Do("GET", "/api/v1/admin/audit/entity/config/"+settings.BuyerFeeRateBps.Name()+"?result=refused", nil, adm.Auth()).
			Want(t, http.StatusOK, "").List()
		if len(refused) == 0 {
			t.Fatalf("no refused audit entries for the fee")
		}

		adminAuthTable(t, one, adm, "/api/v1/admin/config")
		user := one.Register("config-user")
		key := one.NewKey(adm, "buy_sell")
		for _, h := range []testkit.Header{user.Auth(), key.Auth()} {
			one.Do("PATCH", "/api/v1/admin/config/"+settings.BuyerFeeRateBps.Name(), map[string]any{"value": 1}, h).Want(t, http.StatusForbidden, "FORBIDDEN")
		}
		one.Do("PATCH", "/api/v1/admin/config/"+settings.BuyerFeeRateBps.Name(), map[string]any{"value": 1}).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

// mcpCall calls a tool over MCP with one JSON-RPC POST and answers the
// status and body.
func mcpCall(t *testing.T, s *testkit.Server, secret, tool string) (int, []byte) {
	t.Helper()
	resp, out := s.MCPPost(secret, tool, nil)
	return resp.StatusCode, out
}

// A flag switched off through one replica closes its feature's routes and
// tools on the other at its next request, with 503 FEATURE_DISABLED.
func TestAdminFeatureFlags(t *testing.T) {
	t.Parallel()
	twoReplicas(t, func(t *testing.T, one, two *testkit.Server) {
		adm := one.Admin()
		buyer := one.Register("flag-buyer")
		key := one.NewKey(buyer, "buy_sell")
		list := two.Do("GET", "/api/v1/admin/feature-flags", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if len(list) != 6 {
			t.Fatalf("%d flags: %v", len(list), list)
		}
		for _, f := range settings.Features() {
			k := string(f)
			if f := findKey(t, list, k); f["enabled"] != true || f["updatedAt"] != nil {
				t.Fatalf("flag %v", f)
			}
		}
		// Warm replica two: the routes work.
		two.Do("GET", "/api/v1/offers/buyer/me", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		if st, out := mcpCall(t, two, key.Secret, "get_offers"); st != http.StatusOK || bytes.Contains(out, []byte("FEATURE_DISABLED")) {
			t.Fatalf("get_offers with offers on: %d %s", st, out)
		}

		set := func(flag string, on bool) {
			t.Helper()
			f := one.Do("PATCH", "/api/v1/admin/feature-flags/"+flag, map[string]any{"enabled": on}, adm.Auth()).Want(t, http.StatusOK, "").Data()
			if f["enabled"] != on || f["key"] != flag || f["updatedBy"] != adm.ID {
				t.Fatalf("patched flag = %v", f)
			}
		}
		disabled := func(r *testkit.Response, flag string) {
			t.Helper()
			r.Want(t, http.StatusServiceUnavailable, "FEATURE_DISABLED")
			if d := r.JSON["error"].(map[string]any)["details"].(map[string]any); d["flag"] != flag {
				t.Fatalf("details = %v", d)
			}
		}
		for _, f := range settings.Features() {
			flag := string(f)
			set(flag, false)
		}
		disabled(two.Do("GET", "/api/v1/offers/buyer/me", nil, buyer.Auth()), "offers")
		disabled(two.Do("POST", "/api/v1/agent/offers", map[string]any{}, key.Auth()), "offers")
		disabled(two.Do("POST", "/v1/offers", map[string]any{}, key.Auth()), "offers")
		disabled(two.Do("POST", "/api/v1/agent/purchase", map[string]any{}, key.Auth()), "agent_purchases")
		disabled(two.Do("POST", "/v1/purchase", map[string]any{}, key.Auth()), "agent_purchases")
		disabled(two.Do("POST", "/api/v1/auth/register", map[string]any{}), "registrations")
		disabled(two.Do("POST", "/api/v1/onboarding/agent-init", map[string]any{}), "registrations")
		disabled(two.Do("POST", "/api/v1/listings", map[string]any{}, buyer.Auth()), "listing_creation")
		disabled(two.Do("POST", "/v1/listings", map[string]any{}, key.Auth()), "listing_creation")
		disabled(two.Do("GET", "/api/v1/auth/me/webhook", nil, buyer.Auth()), "webhooks")
		disabled(two.Do("GET", "/v1/agent/webhooks", nil, key.Auth()), "webhooks")
		if st, out := mcpCall(t, two, key.Secret, "get_offers"); st != http.StatusServiceUnavailable || !bytes.Contains(out, []byte("FEATURE_DISABLED")) {
			t.Fatalf("/mcp with mcp off: %d %s", st, out)
		}
		// Other routes are untouched.
		two.Do("GET", "/api/v1/auth/me", nil, buyer.Auth()).Want(t, http.StatusOK, "")

		// MCP on, offers still off: the offer tools refuse, others answer.
		set(string(settings.FeatureMCP), true)
		for tool, flag := range map[string]string{"get_offers": "offers", "purchase_listing": "agent_purchases",
			"create_listing": "listing_creation", "list_webhooks": "webhooks"} {
			st, out := mcpCall(t, two, key.Secret, tool)
			if st != http.StatusOK || !bytes.Contains(out, []byte("FEATURE_DISABLED")) || !bytes.Contains(out, []byte(flag)) {
				t.Fatalf("%s with %s off: %d %s", tool, flag, st, out)
			}
		}
		if st, out := mcpCall(t, two, key.Secret, "get_account"); st != http.StatusOK || bytes.Contains(out, []byte("FEATURE_DISABLED")) {
			t.Fatalf("get_account: %d %s", st, out)
		}

		// Back on: the features answer again.
		for _, f := range settings.Features() {
			flag := string(f)
			set(flag, true)
		}
		two.Do("GET", "/api/v1/offers/buyer/me", nil, buyer.Auth()).Want(t, http.StatusOK, "")
		two.Register("after-flags")

		one.Do("PATCH", "/api/v1/admin/feature-flags/nope", map[string]any{"enabled": true}, adm.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		one.Do("PATCH", "/api/v1/admin/feature-flags/offers", map[string]any{}, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		one.Do("PATCH", "/api/v1/admin/feature-flags/offers", map[string]any{"enabled": "no"}, adm.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")

		a := one.Do("GET", "/api/v1/admin/audit/entity/feature_flag/offers?result=allowed", nil, adm.Auth()).Want(t, http.StatusOK, "").List()
		if len(a) != 2 {
			t.Fatalf("%d audit entries for the offers flag", len(a))
		}
		d := a[0].(map[string]any)["details"].(map[string]any) // newest: switched back on
		if d["before"].(map[string]any)["enabled"] != false || d["after"].(map[string]any)["enabled"] != true {
			t.Fatalf("audit details = %v", d)
		}

		adminAuthTable(t, one, adm, "/api/v1/admin/feature-flags")
		for _, h := range []testkit.Header{buyer.Auth(), key.Auth()} {
			one.Do("PATCH", "/api/v1/admin/feature-flags/offers", map[string]any{"enabled": false}, h).Want(t, http.StatusForbidden, "FORBIDDEN")
		}
	})
}

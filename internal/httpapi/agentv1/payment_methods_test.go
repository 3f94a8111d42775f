package agentv1_test

import (
	"net/http"
	"testing"

	"marketplace/internal/testkit"
)

func TestAccountPaymentMethods(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner, other := s.Register("bcards"), s.Register("bcardsother")
		for _, scope := range []string{"buy_only", "sell_only"} {
			k := s.NewKey(owner, scope)
			r := s.Do("GET", "/v1/account/payment-methods", nil, k.Auth()).Want(t, http.StatusOK, "")
			wantMeta(t, r)
			if l, _ := r.Data()["payment_methods"].([]any); l == nil || len(l) != 0 || testkit.Num(t, r.Data(), "total") != 0 {
				t.Fatalf("no cards yet (%s): %v", scope, r.Data())
			}
		}
		visa := s.SaveCard(owner, "pm_card_visa")
		declining := s.SaveCard(owner, "pm_card_chargeDeclined")
		s.SaveCard(other, "pm_card_amex")

		k := s.NewKey(owner, "buy_only")
		for _, auth := range []testkit.Header{k.Auth(), owner.Auth()} {
			d := s.Do("GET", "/v1/account/payment-methods", nil, auth).Want(t, http.StatusOK, "").Data()
			l, _ := d["payment_methods"].([]any)
			if len(l) != 2 || testkit.Num(t, d, "total") != 2 {
				t.Fatalf("cards: %v", d)
			}
			first, second := l[0].(map[string]any), l[1].(map[string]any)
			if first["id"] != visa || first["is_default"] != true || first["brand"] != "visa" || first["last4"] != "4242" ||
				first["exp_month"] != float64(12) || first["exp_year"] == nil || first["created_at"] == nil || first["type"] != "card" {
				t.Fatalf("default card: %v", first)
			}
			if second["id"] != declining || second["is_default"] != false || second["last4"] != "0002" {
				t.Fatalf("second card: %v", second)
			}
			if _, camel := first["isDefault"]; camel {
				t.Fatalf("Variant B card in camelCase: %v", first)
			}
		}

		s.Do("GET", "/v1/account/payment-methods", nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("GET", "/v1/account/payment-methods", nil, testkit.AgentKey("mk_test_bad")).Want(t, http.StatusUnauthorized, "INVALID_AGENT_KEY")
		s.Do("GET", "/v1/account/payment-methods", nil, testkit.Bearer("nope")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		s.Do("DELETE", "/api/v1/payment-methods/"+visa, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
	})
}

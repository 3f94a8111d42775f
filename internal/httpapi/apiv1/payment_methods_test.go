package apiv1_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"marketplace/internal/market"
	"marketplace/internal/payments"
	"marketplace/internal/testkit"
)

// pmSetup starts a setup intent for u and returns its id.
func pmSetup(t *testing.T, s *testkit.Server, u *testkit.User) string {
	t.Helper()
	d := s.Do("POST", "/api/v1/payment-methods/setup", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
	id, _ := d["setupIntentId"].(string)
	secret, _ := d["clientSecret"].(string)
	if !strings.HasPrefix(id, "seti_sbx_") || !strings.HasPrefix(secret, id+"_secret_") {
		t.Fatalf("setup intent: %v", d)
	}
	return id
}

// pmConfirm saves the card of token through a new setup intent.
func pmConfirm(t *testing.T, s *testkit.Server, u *testkit.User, token string) map[string]any {
	t.Helper()
	return s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": pmSetup(t, s, u), "paymentMethod": token},
		u.Auth()).Want(t, http.StatusCreated, "").Data()
}

func pmList(t *testing.T, s *testkit.Server, u *testkit.User) []map[string]any {
	t.Helper()
	r := s.Do("GET", "/api/v1/payment-methods", nil, u.Auth()).Want(t, http.StatusOK, "")
	var out []map[string]any
	for _, v := range r.List() {
		out = append(out, v.(map[string]any))
	}
	if total, _ := r.JSON["meta"].(map[string]any)["total"].(float64); int(total) != len(out) {
		t.Fatalf("meta.total %v for %d cards", total, len(out))
	}
	return out
}

func pmIDs(list []map[string]any) []string {
	var out []string
	for _, m := range list {
		id := m["id"].(string)
		if m["isDefault"] == true {
			id += "*"
		}
		out = append(out, id)
	}
	return out
}

func TestPaymentMethodsFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("cardholder")
		if l := pmList(t, s, u); len(l) != 0 {
			t.Fatalf("new user has cards: %v", l)
		}

		seti := pmSetup(t, s, u)
		body := map[string]any{"setupIntentId": seti, "paymentMethod": "pm_card_visa"}
		visa := s.Do("POST", "/api/v1/payment-methods/confirm", body, u.Auth()).Want(t, http.StatusCreated, "").Data()
		if visa["brand"] != "visa" || visa["last4"] != "4242" || visa["expMonth"] != float64(12) || visa["expYear"] != float64(2029) ||
			visa["isDefault"] != true || visa["type"] != "card" || visa["createdAt"] == nil {
			t.Fatalf("first card: %v", visa)
		}
		// Confirming the same setup intent again answers the same card; with
		// another token it is refused.
		again := s.Do("POST", "/api/v1/payment-methods/confirm", body, u.Auth()).Want(t, http.StatusCreated, "").Data()
		if again["id"] != visa["id"] {
			t.Fatalf("repeated confirm saved %v, first %v", again["id"], visa["id"])
		}
		s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": seti, "paymentMethod": "pm_card_amex"},
			u.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")

		mc := pmConfirm(t, s, u, "pm_card_mastercard")
		if mc["brand"] != "mastercard" || mc["last4"] != "4444" || mc["isDefault"] != false {
			t.Fatalf("second card: %v", mc)
		}
		amex := pmConfirm(t, s, u, "pm_card_amex")
		v, m, a := visa["id"].(string), mc["id"].(string), amex["id"].(string)
		if got := strings.Join(pmIDs(pmList(t, s, u)), " "); got != v+"* "+a+" "+m {
			t.Fatalf("list = %s, want default then newest first", got)
		}

		d := s.Do("PATCH", "/api/v1/payment-methods/"+m+"/default", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if d["id"] != m || d["isDefault"] != true {
			t.Fatalf("set default: %v", d)
		}
		if got := strings.Join(pmIDs(pmList(t, s, u)), " "); got != m+"* "+a+" "+v {
			t.Fatalf("list after default = %s", got)
		}
		// Making the default the default again is fine.
		s.Do("PATCH", "/api/v1/payment-methods/"+m+"/default", nil, u.Auth()).Want(t, http.StatusOK, "")

		// Deleting the default makes the newest remaining card the default.
		del := s.Do("DELETE", "/api/v1/payment-methods/"+m, nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if del["id"] != m || del["deleted"] != true {
			t.Fatalf("delete: %v", del)
		}
		if got := strings.Join(pmIDs(pmList(t, s, u)), " "); got != a+"* "+v {
			t.Fatalf("list after deleting the default = %s", got)
		}
		s.Do("DELETE", "/api/v1/payment-methods/"+m, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("PATCH", "/api/v1/payment-methods/"+m+"/default", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		// Deleting a card that is not the default leaves the default alone.
		s.Do("DELETE", "/api/v1/payment-methods/"+v, nil, u.Auth()).Want(t, http.StatusOK, "")
		s.Do("DELETE", "/api/v1/payment-methods/"+a, nil, u.Auth()).Want(t, http.StatusOK, "")
		if l := pmList(t, s, u); len(l) != 0 {
			t.Fatalf("cards left: %v", l)
		}
		// The setup intent whose card was deleted cannot bring it back.
		s.Do("POST", "/api/v1/payment-methods/confirm", body, u.Auth()).Want(t, http.StatusConflict, "INVALID_STATE")
		// The next card saved is the default again.
		if c := pmConfirm(t, s, u, "pm_card_visa"); c["isDefault"] != true {
			t.Fatalf("card after emptying the list: %v", c)
		}
	})
}

func TestPaymentMethodsErrors(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u, other := s.Register("pmerrors"), s.Register("pmother")
		k := s.NewKey(u, "buy_sell")
		seti := pmSetup(t, s, u)
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"empty", map[string]any{}, []string{"setupIntentId", "paymentMethod"}},
			{"no card", map[string]any{"setupIntentId": seti}, []string{"paymentMethod"}},
			{"no intent", map[string]any{"paymentMethod": "pm_card_visa"}, []string{"setupIntentId"}},
			{"unknown token", map[string]any{"setupIntentId": seti, "paymentMethod": "pm_card_bogus"}, []string{"paymentMethod"}},
			{"garbage token", map[string]any{"setupIntentId": seti, "paymentMethod": "pm card\u0000"}, []string{"paymentMethod"}},
			{"wrong type", map[string]any{"setupIntentId": 5, "paymentMethod": "pm_card_visa"}, []string{"setupIntentId"}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				testkit.WantFields(t, keysHelperSub(s, t).Do("POST", "/api/v1/payment-methods/confirm", c.body, u.Auth()), c.fields...)
			})
		}
		s.Do("POST", "/api/v1/payment-methods/confirm", "[1]", u.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("POST", "/api/v1/payment-methods/setup", "[1]", u.Auth()).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("POST", "/api/v1/payment-methods/setup", map[string]any{"ignored": true}, u.Auth()).Want(t, http.StatusOK, "")
		s.Do("POST", "/api/v1/payment-methods/confirm", strings.Repeat(" ", 2<<20), u.Auth()).
			Want(t, http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
		// Unknown, malformed and other people's setup intents.
		testkit.WantFields(t, s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": "a\u0000b",
			"paymentMethod": "pm_card_visa"}, u.Auth()), "setupIntentId")
		for _, id := range []string{"seti_sbx_nope", strings.Repeat("x", 300), pmSetup(t, s, other)} {
			s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": id, "paymentMethod": "pm_card_visa"},
				u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		if l := pmList(t, s, u); len(l) != 0 {
			t.Fatalf("a refused confirm saved a card: %v", l)
		}

		// Another user's card is not found, and stays as it was.
		theirs := pmConfirm(t, s, other, "pm_card_visa")["id"].(string)
		for _, id := range []string{theirs, market.NewID(), "not-an-id"} {
			s.Do("PATCH", "/api/v1/payment-methods/"+id+"/default", nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("DELETE", "/api/v1/payment-methods/"+id, nil, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		testkit.WantFields(t, s.Do("PATCH", "/api/v1/payment-methods/%00/default", nil, u.Auth()), "id")
		testkit.WantFields(t, s.Do("DELETE", "/api/v1/payment-methods/%00", nil, u.Auth()), "id")
		if l := pmList(t, s, other); len(l) != 1 || l[0]["id"] != theirs || l[0]["isDefault"] != true {
			t.Fatalf("the other user's cards: %v", l)
		}

		// Human-only routes: no credentials, a bad token, an agent key.
		mine := pmConfirm(t, s, u, "pm_card_visa")["id"].(string)
		for _, rt := range []struct{ method, path string }{
			{"POST", "/api/v1/payment-methods/setup"}, {"POST", "/api/v1/payment-methods/confirm"},
			{"GET", "/api/v1/payment-methods"}, {"PATCH", "/api/v1/payment-methods/" + mine + "/default"},
			{"DELETE", "/api/v1/payment-methods/" + mine},
			{"POST", "/api/v1/seller/connect/seller/connect/card-setup"}, {"POST", "/api/v1/seller/connect/seller/connect/card-save"},
			{"GET", "/api/v1/seller/connect/seller/connect/card-status"},
			{"GET", "/api/v1/seller/connect/dashboard"}, {"POST", "/api/v1/seller/connect/send-link"},
		} {
			s.Do(rt.method, rt.path, nil).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(rt.method, rt.path, nil, testkit.Bearer("nope")).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
			s.Do(rt.method, rt.path, nil, k.Auth()).Want(t, http.StatusForbidden, "FORBIDDEN")
		}
		if l := pmList(t, s, u); len(l) != 1 || l[0]["id"] != mine {
			t.Fatalf("cards after refused calls: %v", l)
		}
		s.SetStatus(u.ID, "suspended")
		s.Do("GET", "/api/v1/payment-methods", nil, u.Auth()).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
	})
}

// TestPaymentMethodOutcomes charges each test token's card through the
// processor, as the purchase path does.
func TestPaymentMethodOutcomes(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		ctx := context.Background()
		pay := s.App.Payments
		u, other := s.Register("outcomes"), s.Register("outcomesother")
		tx := s.App.DB.Read()

		_, _, err := pay.ChargeableMethod(ctx, tx, u.ID, "")
		if market.CodeOf(err) != market.CodePaymentMethodRequired {
			t.Fatalf("no card: %v", err)
		}
		for _, c := range []struct {
			token   string
			status  payments.PaymentStatus
			failure string
		}{
			{"pm_card_visa", payments.PaymentSucceeded, ""},
			{"pm_card_chargeDeclined", payments.PaymentFailed, "card_declined"},
			{"pm_card_authenticationRequired", payments.PaymentRequiresAction, "authentication_required"},
		} {
			id := pmConfirm(t, s, u, c.token)["id"].(string)
			m, customer, err := pay.ChargeableMethod(ctx, tx, u.ID, id)
			if err != nil || m.ID != id || !strings.HasPrefix(customer, "cus_sbx_") || !strings.HasPrefix(m.ExternalID, "pm_sbx_") {
				t.Fatalf("%s: chargeable %+v %q %v", c.token, m, customer, err)
			}
			key := market.NewID()
			p, err := pay.Gateway().Charge(ctx, payments.ChargeRequest{IdempotencyKey: key, CustomerID: customer,
				PaymentMethodID: m.ExternalID, Amount: 1099, Currency: "usd"})
			if err != nil || p.Status != c.status || p.FailureCode != c.failure {
				t.Fatalf("%s: charge %+v %v", c.token, p, err)
			}
		}
		// The default is the first card saved.
		if m, _, err := pay.ChargeableMethod(ctx, tx, u.ID, ""); err != nil || m.Last4 != "4242" || !m.IsDefault {
			t.Fatalf("default: %+v %v", m, err)
		}
		// Someone else's, unknown and malformed ids name the field.
		theirs := pmConfirm(t, s, other, "pm_card_visa")["id"].(string)
		for _, id := range []string{theirs, market.NewID(), "x\u0000"} {
			_, _, err := pay.ChargeableMethod(ctx, tx, u.ID, id)
			if market.CodeOf(err) != market.CodeValidation || market.ErrorOf(err).Fields[0].Field != "payment_method_id" {
				t.Fatalf("card %q: %v", id, err)
			}
		}
	})
}

// TestPaymentMethodsConcurrent confirms a new user's first cards at once,
// and one setup intent several times at once.
func TestPaymentMethodsConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("pmrace")
		const n = 6
		out := make(chan *testkit.Response, n)
		for range n { // concurrent first setups make one customer
			go func() { out <- s.Do("POST", "/api/v1/payment-methods/setup", nil, u.Auth()) }()
		}
		var intents []string
		for range n {
			id, _ := (<-out).Want(t, http.StatusOK, "").Data()["setupIntentId"].(string)
			intents = append(intents, id)
		}
		for _, id := range intents {
			go func() {
				out <- s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": id, "paymentMethod": "pm_card_visa"}, u.Auth())
			}()
		}
		for range n {
			(<-out).Want(t, http.StatusCreated, "")
		}
		list := pmList(t, s, u)
		defaults := 0
		for _, m := range list {
			if m["isDefault"] == true {
				defaults++
			}
		}
		if len(list) != n || defaults != 1 {
			t.Fatalf("%d cards, %d defaults", len(list), defaults)
		}
		customers := map[string]bool{}
		for _, m := range list {
			_, c, err := s.App.Payments.ChargeableMethod(context.Background(), s.App.DB.Read(), u.ID, m["id"].(string))
			if err != nil {
				t.Fatal(err)
			}
			customers[c] = true
		}
		if len(customers) != 1 {
			t.Fatalf("one user, customers %v", customers)
		}

		// One setup intent confirmed at once from several requests saves one card.
		seti := pmSetup(t, s, u)
		for range n {
			go func() {
				out <- s.Do("POST", "/api/v1/payment-methods/confirm", map[string]any{"setupIntentId": seti, "paymentMethod": "pm_card_amex"}, u.Auth())
			}()
		}
		ids := map[any]bool{}
		for range n {
			ids[(<-out).Want(t, http.StatusCreated, "").Data()["id"]] = true
		}
		if len(ids) != 1 || len(pmList(t, s, u)) != n+1 {
			t.Fatalf("one setup intent saved cards %v", ids)
		}
	})
}

func TestSellerCardOnFile(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("sellercard")
		st := s.Do("GET", "/api/v1/seller/connect/seller/connect/card-status", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		if st["hasCard"] != false || st["card"] != nil {
			t.Fatalf("status without a card: %v", st)
		}
		si := s.Do("POST", "/api/v1/seller/connect/seller/connect/card-setup", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		id, _ := si["setupIntentId"].(string)
		if !strings.HasPrefix(id, "seti_sbx_") || si["clientSecret"] == "" {
			t.Fatalf("card setup: %v", si)
		}
		testkit.WantFields(t, s.Do("POST", "/api/v1/seller/connect/seller/connect/card-save", map[string]any{"setupIntentId": id},
			u.Auth()), "paymentMethod")
		saved := s.Do("POST", "/api/v1/seller/connect/seller/connect/card-save", map[string]any{"setupIntentId": id, "paymentMethod": "pm_card_mastercard"},
			u.Auth()).Want(t, http.StatusOK, "").Data()
		if saved["brand"] != "mastercard" || saved["isDefault"] != true {
			t.Fatalf("saved card: %v", saved)
		}
		st = s.Do("GET", "/api/v1/seller/connect/seller/connect/card-status", nil, u.Auth()).Want(t, http.StatusOK, "").Data()
		card, _ := st["card"].(map[string]any)
		if st["hasCard"] != true || card["id"] != saved["id"] || card["last4"] != "4444" {
			t.Fatalf("status with a card: %v", st)
		}
		// The seller card is one of the saved cards.
		if l := pmList(t, s, u); len(l) != 1 || l[0]["id"] != saved["id"] {
			t.Fatalf("payment methods: %v", l)
		}
		other := s.Register("sellercardother")
		s.Do("POST", "/api/v1/seller/connect/seller/connect/card-save", map[string]any{"setupIntentId": id, "paymentMethod": "pm_card_visa"},
			other.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
	})
}

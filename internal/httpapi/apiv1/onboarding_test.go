package apiv1_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/internal/testkit"
)

var onboardHelperSeq atomic.Int64

// onboardHelperEmail is a fresh owner address.
func onboardHelperEmail(name string) string {
	return fmt.Sprintf("%s.onb%d@example.com", name, onboardHelperSeq.Add(1))
}

// onboardHelperSession is an agent-init answer as the agent keeps it.
type onboardHelperSession struct {
	ID, Magic, Secret string
	Data              map[string]any
}

// onboardHelperInit starts onboarding with body and checks the answer.
func onboardHelperInit(t testing.TB, s *testkit.Server, body map[string]any) *onboardHelperSession {
	t.Helper()
	d := s.Do("POST", "/api/v1/onboarding/agent-init", body).Want(t, http.StatusOK, "").Data()
	o := &onboardHelperSession{Data: d}
	o.ID, _ = d["onboarding_id"].(string)
	link, _ := d["magic_link"].(string)
	o.Secret, _ = d["poll_secret"].(string)
	if o.ID == "" || o.Secret == "" || !strings.HasPrefix(link, s.URL+"/api/v1/onboarding/complete/") {
		t.Fatalf("agent-init answer: %v", d)
	}
	o.Magic = keysHelperPath(t, s, link)
	return o
}

// onboardHelperPoll reads the session status, with the poll secret when
// secret is not "".
func onboardHelperPoll(t testing.TB, s *testkit.Server, id, secret string) map[string]any {
	t.Helper()
	var hs []testkit.Header
	if secret != "" {
		hs = append(hs, testkit.Header{Name: "X-Onboarding-Secret", Value: secret})
	}
	return s.Do("GET", "/api/v1/onboarding/status/"+id, nil, hs...).Want(t, http.StatusOK, "").Data()
}

func onboardHelperComplete(password string) map[string]any {
	return map[string]any{"password": password, "acceptedTerms": true, "acceptedAgentTerms": true}
}

func TestOnboardingAgentFlow(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		email := onboardHelperEmail("Owner")
		o := onboardHelperInit(t, s, map[string]any{
			"ownerEmail": "  " + strings.ToUpper(email) + " ", "desiredScope": "sell_only", "ownerFirstName": "Ada",
			"ownerLastName": "Lovelace", "agentLabel": "Lister", "agentMetadata": map[string]any{"framework": "langchain", "version": "0.3"},
		})
		d := o.Data
		todo, _ := d["human_todo_list"].([]any)
		if d["status"] != "pending_human" || len(todo) == 0 {
			t.Fatalf("agent-init: %v", d)
		}
		exp, err := time.Parse(time.RFC3339Nano, fmt.Sprint(d["expires_at"]))
		if err != nil || !exp.Equal(s.Clock.Now().Add(24*time.Hour)) {
			t.Fatalf("expires_at = %v, want the clock + 24h", d["expires_at"])
		}
		for _, it := range todo {
			if _, ok := it.(string); !ok {
				t.Fatalf("human_todo_list holds %#v", it)
			}
		}
		// The agent polls: pending, no key, and without the secret too.
		st := onboardHelperPoll(t, s, o.ID, o.Secret)
		if st["status"] != "pending_human" || st["agent_key"] != nil || st["key_id"] != nil {
			t.Fatalf("first poll: %v", st)
		}
		onboardHelperPoll(t, s, o.ID, "")
		s.Do("GET", "/api/v1/onboarding/status/"+o.ID, nil, testkit.Header{Name: "X-Onboarding-Secret", Value: "wrong"}).
			Want(t, http.StatusUnauthorized, "UNAUTHORIZED")

		// The human opens the link.
		v := s.Do("GET", o.Magic, nil).Want(t, http.StatusOK, "").Data()
		pre := keysHelperObj(t, v, "prefilled")
		missing, _ := v["missing_fields"].([]any)
		if v["status"] != "human_completing" || v["onboarding_id"] != o.ID || pre["email"] != strings.ToLower(email) ||
			pre["first_name"] != "Ada" || pre["last_name"] != "Lovelace" || pre["agent_label"] != "Lister" ||
			pre["desired_scope"] != "sell_only" || v["account_exists"] != false {
			t.Fatalf("magic link view: %v", v)
		}
		for _, f := range []string{"password", "acceptedTerms", "acceptedAgentTerms"} {
			if !slices.Contains(missing, any(f)) {
				t.Fatalf("missing_fields %v lacks %s", missing, f)
			}
		}
		if slices.Contains(missing, any("displayName")) {
			t.Fatalf("missing_fields %v asks for a name the agent gave", missing)
		}
		// Opening it again before submitting is fine; the agent sees the state.
		s.Do("GET", o.Magic, nil).Want(t, http.StatusOK, "")
		if st := onboardHelperPoll(t, s, o.ID, o.Secret); st["status"] != "human_completing" {
			t.Fatalf("poll while the human completes: %v", st)
		}

		// The human submits: owner and key exist, waiting for verification.
		c := s.Do("POST", o.Magic, onboardHelperComplete("correct horse battery")).Want(t, http.StatusOK, "").Data()
		verURL, _ := c["verification_url"].(string)
		token, _ := c["access_token"].(string)
		keyID, _ := c["key_id"].(string)
		if c["status"] != "kyc_pending" || c["user_id"] == nil || keyID == "" || verURL == "" || token == "" {
			t.Fatalf("complete: %v", c)
		}
		if strings.Contains(string(s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(token)).Want(t, http.StatusOK, "").Body), "mk_test_") {
			t.Fatal("the owner's /auth/me shows a key")
		}
		owner := &testkit.User{ID: c["user_id"].(string), Token: token}
		me := s.Do("GET", "/api/v1/auth/me", nil, owner.Auth()).Want(t, http.StatusOK, "").Data()
		if me["email"] != strings.ToLower(email) || me["displayName"] != "Ada Lovelace" || me["identityVerified"] != false {
			t.Fatalf("new owner: %v", me)
		}
		// The password works for a login.
		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": email, "password": "correct horse battery"}).Want(t, http.StatusOK, "")

		// The link is single use.
		s.Do("GET", o.Magic, nil).Want(t, http.StatusConflict, "INVALID_STATE")
		r := s.Do("POST", o.Magic, onboardHelperComplete("correct horse battery")).Want(t, http.StatusConflict, "INVALID_STATE")
		if det := keysHelperObj(t, r.JSON["error"].(map[string]any), "details"); det["status"] != "kyc_pending" {
			t.Fatalf("details of a used link: %v", det)
		}

		// Without the secret the key never shows, and asking does not use it up.
		st = onboardHelperPoll(t, s, o.ID, "")
		if st["status"] != "kyc_pending" || st["agent_key"] != nil || st["key_id"] != keyID || st["agent_key_delivered"] != false {
			t.Fatalf("poll without the secret: %v", st)
		}
		s.Do("GET", "/api/v1/onboarding/status/"+o.ID, nil, testkit.Header{Name: "X-Onboarding-Secret", Value: o.Secret + "x"}).
			Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
		// With it: the key, once.
		st = onboardHelperPoll(t, s, o.ID, o.Secret)
		secret, _ := st["agent_key"].(string)
		if !strings.HasPrefix(secret, "mk_test_") || st["agent_key_delivered"] != true {
			t.Fatalf("first poll after completion: %v", st)
		}
		for range 2 {
			if again := onboardHelperPoll(t, s, o.ID, o.Secret); again["agent_key"] != nil || again["agent_key_delivered"] != true {
				t.Fatalf("a later poll: %v", again)
			}
		}
		if again := onboardHelperPoll(t, s, o.ID, ""); again["agent_key"] != nil {
			t.Fatalf("a later poll without the secret: %v", again)
		}

		// The delivered key works, for the new owner, with the desired scope
		// and label.
		k := &testkit.Key{ID: keyID, Secret: secret}
		am := keysHelperMe(s, k).Want(t, http.StatusOK, "").Data()
		if am["userId"] != owner.ID || am["keyId"] != keyID || am["scope"] != "sell_only" || am["label"] != "Lister" {
			t.Fatalf("agent /auth/me with the delivered key: %v", am)
		}
		keys := s.Do("GET", "/api/v1/agent-keys", nil, owner.Auth()).Want(t, http.StatusOK, "").List()
		if len(keys) != 1 || keys[0].(map[string]any)["id"] != keyID {
			t.Fatalf("owner's keys: %v", keys)
		}
		if m := keysHelperObj(t, keys[0].(map[string]any), "metadata"); m["framework"] != "langchain" {
			t.Fatalf("key metadata: %v", m)
		}

		// The owner verifies through verification_url: the session completes.
		s.Do("POST", keysHelperPath(t, s, verURL), nil).Want(t, http.StatusOK, "")
		if st := onboardHelperPoll(t, s, o.ID, o.Secret); st["status"] != "complete" || st["agent_key"] != nil {
			t.Fatalf("poll after verification: %v", st)
		}
		if st := onboardHelperPoll(t, s, o.ID, ""); st["status"] != "complete" {
			t.Fatalf("poll without secret after verification: %v", st)
		}
		if am := keysHelperMe(s, k).Want(t, http.StatusOK, "").Data(); am["identityVerified"] != true || am["trustTier"] != "verified" {
			t.Fatalf("agent /auth/me after verification: %v", am)
		}
		// Still single use after completion; and an expired clock does not
		// turn a completed session into an expired one.
		s.Clock.Advance(48 * time.Hour)
		if st := onboardHelperPoll(t, s, o.ID, o.Secret); st["status"] != "complete" {
			t.Fatalf("completed session two days later: %v", st)
		}
		r = s.Do("GET", o.Magic, nil).Want(t, http.StatusConflict, "INVALID_STATE")
		if det := keysHelperObj(t, r.JSON["error"].(map[string]any), "details"); det["status"] != "complete" {
			t.Fatalf("details of a completed link: %v", det)
		}
	})
}

func TestOnboardingExpiry(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		unusedEmail := onboardHelperEmail("exp")
		unused := onboardHelperInit(t, s, map[string]any{"ownerEmail": unusedEmail, "desiredScope": "buy_only", "ownerFirstName": "E"})
		opened := onboardHelperInit(t, s, map[string]any{"ownerEmail": onboardHelperEmail("exp2"), "ownerFirstName": "F"})
		late := onboardHelperInit(t, s, map[string]any{"ownerEmail": onboardHelperEmail("exp3"), "ownerFirstName": "G"})
		s.Do("GET", opened.Magic, nil).Want(t, http.StatusOK, "")

		// One second before the deadline everything still works.
		s.Clock.Advance(24*time.Hour - time.Second)
		if st := onboardHelperPoll(t, s, unused.ID, unused.Secret); st["status"] != "pending_human" {
			t.Fatalf("poll just before expiry: %v", st)
		}
		s.Do("GET", late.Magic, nil).Want(t, http.StatusOK, "")

		s.Clock.Advance(2 * time.Second)
		for _, o := range []*onboardHelperSession{unused, opened} {
			if st := onboardHelperPoll(t, s, o.ID, o.Secret); st["status"] != "expired" || st["agent_key"] != nil {
				t.Fatalf("poll after expiry: %v", st)
			}
			for _, method := range []string{"GET", "POST"} {
				r := s.Do(method, o.Magic, onboardHelperBody(method)).Want(t, http.StatusConflict, "INVALID_STATE")
				if det := keysHelperObj(t, r.JSON["error"].(map[string]any), "details"); det["status"] != "expired" {
					t.Fatalf("%s of an expired link: details %v", method, det)
				}
			}
		}
		// The expiry is recorded, not just computed: a poll without the
		// secret sees it too.
		if st := onboardHelperPoll(t, s, late.ID, ""); st["status"] != "expired" {
			t.Fatalf("late session: %v", st)
		}
		r := s.Do("POST", late.Magic, onboardHelperComplete("a long password")).Want(t, http.StatusConflict, "INVALID_STATE")
		if det := keysHelperObj(t, r.JSON["error"].(map[string]any), "details"); det["status"] != "expired" {
			t.Fatalf("details: %v", det)
		}
		// No account was made for an expired session.
		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": unusedEmail, "password": "a long password"}).
			Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
	})
}

// onboardHelperBody is a valid completion body for POST, nothing for GET.
func onboardHelperBody(method string) any {
	if method == "POST" {
		return onboardHelperComplete("a long password")
	}
	return nil
}

func TestOnboardingValidation(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		good := func() map[string]any {
			return map[string]any{"ownerEmail": onboardHelperEmail("val"), "desiredScope": "buy_sell"}
		}
		with := func(k string, v any) map[string]any {
			b := good()
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
			return b
		}
		cases := []struct {
			name   string
			body   any
			fields []string
		}{
			{"missing email", with("ownerEmail", nil), []string{"ownerEmail"}},
			{"bad email", with("ownerEmail", "not-an-email"), []string{"ownerEmail"}},
			{"bad scope", with("desiredScope", "everything"), []string{"desiredScope"}},
			{"long label", with("agentLabel", strings.Repeat("l", 101)), []string{"agentLabel"}},
			{"long first name", with("ownerFirstName", strings.Repeat("f", 81)), []string{"ownerFirstName"}},
			{"long last name", with("ownerLastName", strings.Repeat("f", 81)), []string{"ownerLastName"}},
			{"metadata too big", with("agentMetadata", map[string]any{"x": strings.Repeat("m", 9000)}), []string{"agentMetadata"}},
			{"metadata not an object", with("agentMetadata", "x"), []string{"agentMetadata"}},
			{"email not a string", with("ownerEmail", 5), []string{"ownerEmail"}},
		}
		for _, c := range cases {
			t.Run("init "+c.name, func(t *testing.T) {
				testkit.WantFields(t, keysHelperSub(s, t).Do("POST", "/api/v1/onboarding/agent-init", c.body), c.fields...)
			})
		}
		t.Run("init empty body", func(t *testing.T) {
			ss := keysHelperSub(s, t)
			ss.Unchecked = true // no body at all
			testkit.WantFields(t, ss.Do("POST", "/api/v1/onboarding/agent-init", nil), "body")
		})
		// Defaults: scope buy_sell, label "Agent"; snake_case spellings work.
		o := onboardHelperInit(t, s, map[string]any{"owner_email": onboardHelperEmail("snake"), "desired_scope": "buy", "agent_label": "Snake"})
		v := s.Do("GET", o.Magic, nil).Want(t, http.StatusOK, "").Data()
		pre := keysHelperObj(t, v, "prefilled")
		if pre["desired_scope"] != "buy_only" || pre["agent_label"] != "Snake" {
			t.Fatalf("snake_case init: %v", pre)
		}
		// No name from the agent: the human must give one.
		if missing, _ := v["missing_fields"].([]any); !slices.Contains(missing, any("displayName")) {
			t.Fatalf("missing_fields %v lacks displayName", missing)
		}
		d := onboardHelperInit(t, s, map[string]any{"ownerEmail": onboardHelperEmail("dflt")})
		if pre := keysHelperObj(t, s.Do("GET", d.Magic, nil).Want(t, http.StatusOK, "").Data(), "prefilled"); pre["desired_scope"] != "buy_sell" || pre["agent_label"] != "Agent" {
			t.Fatalf("defaults: %v", pre)
		}

		completeCases := []struct {
			name   string
			body   map[string]any
			fields []string
		}{
			{"nothing", map[string]any{}, []string{"password", "acceptedTerms", "acceptedAgentTerms"}},
			{"terms false", map[string]any{"password": "long enough pw", "acceptedTerms": false, "acceptedAgentTerms": true}, []string{"acceptedTerms"}},
			{"agent terms false", map[string]any{"password": "long enough pw", "acceptedTerms": true, "acceptedAgentTerms": false}, []string{"acceptedAgentTerms"}},
			{"short password", map[string]any{"password": "short", "acceptedTerms": true, "acceptedAgentTerms": true, "displayName": "N"}, []string{"password"}},
			{"no name", onboardHelperComplete("long enough pw"), []string{"displayName"}},
			{"password not a string", map[string]any{"password": 5}, []string{"password"}},
		}
		for _, c := range completeCases {
			t.Run("complete "+c.name, func(t *testing.T) {
				testkit.WantFields(t, keysHelperSub(s, t).Do("POST", o.Magic, c.body), c.fields...)
			})
		}
		// After all those refusals the link still works, with a display name.
		body := onboardHelperComplete("long enough pw")
		body["displayName"] = "Snake Owner"
		c := s.Do("POST", o.Magic, body).Want(t, http.StatusOK, "").Data()
		me := s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(c["access_token"].(string))).Want(t, http.StatusOK, "").Data()
		if me["displayName"] != "Snake Owner" {
			t.Fatalf("owner: %v", me)
		}
		key := onboardHelperPoll(t, s, o.ID, o.Secret)["agent_key"].(string)
		if am := keysHelperMe(s, &testkit.Key{Secret: key}).Want(t, http.StatusOK, "").Data(); am["scope"] != "buy_only" || am["label"] != "Snake" {
			t.Fatalf("agent: %v", am)
		}

		// Unknown sessions and links.
		unknown := "01900000-0000-7000-8000-000000000000"
		s.Do("GET", "/api/v1/onboarding/status/"+unknown, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/api/v1/onboarding/status/"+unknown, nil, testkit.Header{Name: "X-Onboarding-Secret", Value: o.Secret}).
			Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/api/v1/onboarding/status/not-an-id", nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("GET", "/api/v1/onboarding/complete/nope", nil).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", "/api/v1/onboarding/complete/nope", onboardHelperComplete("long enough pw")).Want(t, http.StatusNotFound, "NOT_FOUND")
		for _, tok := range []string{strings.Repeat("t", 200), "a%20b"} {
			s.Do("GET", "/api/v1/onboarding/complete/"+tok, nil).Want(t, http.StatusNotFound, "NOT_FOUND")
			s.Do("POST", "/api/v1/onboarding/complete/"+tok, onboardHelperComplete("long enough pw")).Want(t, http.StatusNotFound, "NOT_FOUND")
		}
		// A control character in a path is refused at the edge, naming it.
		s.Do("GET", "/api/v1/onboarding/complete/%00", nil).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		s.Do("POST", "/api/v1/onboarding/complete/%00", onboardHelperComplete("long enough pw")).Want(t, http.StatusBadRequest, "VALIDATION_ERROR")
		testkit.WantFields(t, s.Do("GET", "/api/v1/onboarding/status/%00", nil), "id")
		// Another session's secret does not open this one.
		s.Do("GET", "/api/v1/onboarding/status/"+d.ID, nil, testkit.Header{Name: "X-Onboarding-Secret", Value: o.Secret}).
			Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

func TestOnboardingExistingAccount(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("existing")
		o := onboardHelperInit(t, s, map[string]any{"ownerEmail": strings.ToUpper(u.Email), "desiredScope": "buy_only", "agentLabel": "Helper"})
		v := s.Do("GET", o.Magic, nil).Want(t, http.StatusOK, "").Data()
		if v["account_exists"] != true {
			t.Fatalf("magic view for an existing account: %v", v)
		}
		if missing, _ := v["missing_fields"].([]any); slices.Contains(missing, any("displayName")) {
			t.Fatalf("an existing account is asked for a name: %v", missing)
		}
		// The wrong password is refused and leaves the link usable.
		s.Do("POST", o.Magic, onboardHelperComplete("not the password")).Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		if st := onboardHelperPoll(t, s, o.ID, o.Secret); st["status"] != "human_completing" || st["key_id"] != nil {
			t.Fatalf("after a wrong password: %v", st)
		}
		c := s.Do("POST", o.Magic, onboardHelperComplete(u.Password)).Want(t, http.StatusOK, "").Data()
		if c["user_id"] != u.ID || c["status"] != "kyc_pending" {
			t.Fatalf("complete for an existing account: %v", c)
		}
		key := onboardHelperPoll(t, s, o.ID, o.Secret)["agent_key"].(string)
		if am := keysHelperMe(s, &testkit.Key{Secret: key}).Want(t, http.StatusOK, "").Data(); am["userId"] != u.ID || am["scope"] != "buy_only" {
			t.Fatalf("agent of the existing account: %v", am)
		}
		if keys := s.Do("GET", "/api/v1/agent-keys", nil, u.Auth()).Want(t, http.StatusOK, "").List(); len(keys) != 1 {
			t.Fatalf("existing owner's keys: %v", keys)
		}

		// An owner already verified completes at once.
		vo := s.VerifiedOwner("verifiedexisting")
		o2 := onboardHelperInit(t, s, map[string]any{"ownerEmail": vo.Email})
		c2 := s.Do("POST", o2.Magic, onboardHelperComplete(vo.Password)).Want(t, http.StatusOK, "").Data()
		if c2["status"] != "complete" || c2["verification_url"] != nil {
			t.Fatalf("complete for a verified owner: %v", c2)
		}
		st := onboardHelperPoll(t, s, o2.ID, o2.Secret)
		if st["status"] != "complete" || st["agent_key"] == nil {
			t.Fatalf("poll for a verified owner: %v", st)
		}

		// A suspended owner cannot take a key this way.
		sus := s.Register("suspendedexisting")
		o3 := onboardHelperInit(t, s, map[string]any{"ownerEmail": sus.Email})
		s.SetStatus(sus.ID, "suspended")
		s.Do("POST", o3.Magic, onboardHelperComplete(sus.Password)).Want(t, http.StatusForbidden, "ACCOUNT_SUSPENDED")
	})
}

func TestOnboardingHuman(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		reg := func(role string) map[string]any {
			b := map[string]any{"email": onboardHelperEmail("human"), "password": "long enough pw", "displayName": "Hu Man", "acceptedTerms": true}
			if role != "" {
				b["role"] = role
			}
			return b
		}
		for _, role := range []string{"", "buyer"} {
			d := s.Do("POST", "/api/v1/onboarding/human", reg(role)).Want(t, http.StatusCreated, "").Data()
			steps, _ := d["nextSteps"].([]any)
			if d["role"] != "buyer" || d["onboardingUrl"] != nil || d["accessToken"] == nil || len(steps) == 0 {
				t.Fatalf("buyer onboarding (role %q): %v", role, d)
			}
			if _, has := d["onboardingUrl"]; !has {
				t.Fatal("onboardingUrl must be present (null) for a buyer")
			}
			if u := keysHelperObj(t, d, "user"); u["displayName"] != "Hu Man" || u["identityVerified"] != false {
				t.Fatalf("buyer user: %v", u)
			}
			s.Do("GET", "/api/v1/auth/me", nil, testkit.Bearer(d["accessToken"].(string))).Want(t, http.StatusOK, "")
		}

		d := s.Do("POST", "/api/v1/onboarding/human", reg("seller")).Want(t, http.StatusCreated, "").Data()
		url, _ := d["onboardingUrl"].(string)
		if d["role"] != "seller" || url == "" {
			t.Fatalf("seller onboarding: %v", d)
		}
		tok := testkit.Bearer(d["accessToken"].(string))
		if st := s.Do("GET", "/api/v1/seller/connect", nil, tok).Want(t, http.StatusOK, "").Data(); st["onboardingUrl"] != url || st["status"] != "pending" {
			t.Fatalf("seller's payout account: %v", st)
		}
		s.Do("POST", keysHelperPath(t, s, url), nil).Want(t, http.StatusOK, "")
		if me := s.Do("GET", "/api/v1/auth/me", nil, tok).Want(t, http.StatusOK, "").Data(); me["identityVerified"] != true {
			t.Fatalf("seller after onboarding: %v", me)
		}

		testkit.WantFields(t, s.Do("POST", "/api/v1/onboarding/human", reg("admin")), "role")
		testkit.WantFields(t, s.Do("POST", "/api/v1/onboarding/human", map[string]any{"email": "x", "password": "short", "displayName": "", "acceptedTerms": false}),
			"email", "password", "displayName", "acceptedTerms")
		dup := reg("buyer")
		s.Do("POST", "/api/v1/onboarding/human", dup).Want(t, http.StatusCreated, "")
		dup["email"] = strings.ToUpper(dup["email"].(string))
		s.Do("POST", "/api/v1/onboarding/human", dup).Want(t, http.StatusConflict, "EMAIL_TAKEN")
		named := reg("seller")
		named["username"] = "taken_name_" + fmt.Sprint(onboardHelperSeq.Add(1))
		s.Do("POST", "/api/v1/onboarding/human", named).Want(t, http.StatusCreated, "")
		named["email"] = onboardHelperEmail("other")
		s.Do("POST", "/api/v1/onboarding/human", named).Want(t, http.StatusConflict, "USERNAME_TAKEN")
	})
}

// TestOnboardingConcurrent shows a magic link is used once and the key is
// delivered once even when the requests race.
func TestOnboardingConcurrent(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		o := onboardHelperInit(t, s, map[string]any{"ownerEmail": onboardHelperEmail("race"), "ownerFirstName": "Race"})
		const n = 5
		statuses := make(chan *testkit.Response, n)
		for range n {
			go func() { statuses <- s.Do("POST", o.Magic, onboardHelperComplete("long enough pw")) }()
		}
		ok := 0
		for range n {
			r := <-statuses
			switch {
			case r.Status == http.StatusOK:
				ok++
			case r.Status == http.StatusConflict && r.Code() == "INVALID_STATE":
			default:
				t.Fatalf("concurrent complete answered %d %s\n%s", r.Status, r.Code(), r.Body)
			}
		}
		if ok != 1 {
			t.Fatalf("%d completions succeeded", ok)
		}

		const polls = 8
		keys := make(chan any, polls)
		for range polls {
			go func() {
				r := s.Do("GET", "/api/v1/onboarding/status/"+o.ID, nil, testkit.Header{Name: "X-Onboarding-Secret", Value: o.Secret})
				if r.Status != http.StatusOK {
					keys <- fmt.Sprintf("status %d", r.Status)
					return
				}
				keys <- r.Data()["agent_key"]
			}()
		}
		delivered := 0
		for range polls {
			switch k := (<-keys).(type) {
			case nil:
			case string:
				if !strings.HasPrefix(k, "mk_test_") {
					t.Fatalf("poll: %s", k)
				}
				delivered++
			}
		}
		if delivered != 1 {
			t.Fatalf("the key was delivered %d times", delivered)
		}
	})
}

// TestOnboardingPasswordThrottle shows completing a magic link for an
// existing account checks its password as a login does, throttle included:
// starting onboarding for someone's e-mail is open to anyone, so it must not
// become an unlimited password-guessing oracle.
func TestOnboardingPasswordThrottle(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("guessed")
		o := onboardHelperInit(t, s, map[string]any{"ownerEmail": u.Email})
		var last *testkit.Response
		for i := range 20 {
			last = s.Do("POST", o.Magic, onboardHelperComplete(fmt.Sprintf("guess number %d", i)))
			if last.Status != http.StatusUnauthorized {
				break
			}
			last.Want(t, http.StatusUnauthorized, "INVALID_CREDENTIALS")
		}
		last.Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		if last.Header.Get("Retry-After") == "" {
			t.Fatal("RATE_LIMITED without Retry-After")
		}
		// While throttled even the right password waits, here and at login.
		s.Do("POST", o.Magic, onboardHelperComplete(u.Password)).Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		s.Do("POST", "/api/v1/auth/login", map[string]any{"email": u.Email, "password": u.Password}).
			Want(t, http.StatusTooManyRequests, "RATE_LIMITED")
		// After the window (real time; the sandbox clock would not do) the
		// owner completes.
		s.RealTime.Advance(time.Hour)
		s.Do("POST", o.Magic, onboardHelperComplete(u.Password)).Want(t, http.StatusOK, "")
	})
}

package app_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/testkit"
)

// The webhook observer: every user of TestEventCauses registers its
// account webhook (PUT /auth/me/webhook) at a local receiver, which checks
// each delivery's Standard Webhooks signature, written here from the
// specification, before counting the event as seen. Deliveries are at
// least once, so an event seen twice counts once.
func init() {
	eventObservers = append(eventObservers, eventObserver{name: "webhook", attach: hookAttach, seen: hookSeen})
}

// hookReceivers holds one receiver per test server.
var hookReceivers sync.Map // *testkit.Server -> *hookReceiver

type hookReceiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	secrets map[string]string // user id -> secret
	got     map[string][]events.Event
	dup     map[string]bool // user id + event id
	bad     []string        // deliveries that did not verify
}

func receiverFor(t *testing.T, s *testkit.Server) *hookReceiver {
	if r, ok := hookReceivers.Load(s); ok {
		return r.(*hookReceiver)
	}
	r := &hookReceiver{secrets: map[string]string{}, got: map[string][]events.Event{}, dup: map[string]bool{}}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	hookReceivers.Store(s, r)
	return r
}

func (r *hookReceiver) serve(w http.ResponseWriter, req *http.Request) {
	user := strings.TrimPrefix(req.URL.Path, "/hook/")
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	if why := verifyHook(r.secrets[user], req.Header, body); why != "" {
		r.bad = append(r.bad, user+": "+why)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	var p struct {
		ID, Type  string
		CreatedAt string `json:"createdAt"`
		Data      map[string]any
	}
	if err := json.Unmarshal(body, &p); err != nil || p.CreatedAt == "" {
		r.bad = append(r.bad, user+": body "+string(body))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	if !r.dup[user+"/"+p.ID] {
		r.dup[user+"/"+p.ID] = true
		r.got[user] = append(r.got[user], events.Event{ID: p.ID, Type: p.Type, Data: p.Data})
	}
	w.WriteHeader(http.StatusNoContent)
}

// verifyHook checks the three Standard Webhooks headers against the body;
// "" means it verifies.
func verifyHook(secret string, h http.Header, body []byte) string {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return "no secret for this receiver"
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(sec, 0)).Abs() > 5*time.Minute {
		return "webhook-timestamp " + ts + " is not now"
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return ""
		}
	}
	return "signature " + h.Get("webhook-signature") + " does not verify"
}

func hookAttach(t *testing.T, s *testkit.Server, u *testkit.User) {
	t.Helper()
	r := receiverFor(t, s)
	got := s.Do("PUT", "/api/v1/auth/me/webhook", map[string]any{"url": r.srv.URL + "/hook/" + u.ID}, u.Auth()).
		Want(t, http.StatusOK, "").Data()
	r.mu.Lock()
	r.secrets[u.ID] = got["secret"].(string)
	r.mu.Unlock()
}

func hookSeen(t *testing.T, s *testkit.Server, u *testkit.User) []events.Event {
	t.Helper()
	r := receiverFor(t, s)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.bad) > 0 {
		t.Fatalf("deliveries that do not verify: %v", r.bad)
	}
	return append([]events.Event(nil), r.got[u.ID]...)
}

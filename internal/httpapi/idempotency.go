package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"marketplace/internal/idempotency"
	"marketplace/internal/market"
)

// Idempotency keys (CONTRACT.md section 7): a retried request with the same
// key and the same parameters gets the first answer again, with header
// Idempotent-Replayed: true, and changes nothing; the same key with other
// parameters is 409 DUPLICATE_REQUEST. Keys are per owner (an agent's key is
// its owner's) and kept for IdempotencyTTL.
const IdempotencyTTL = market.IdempotencyTTL

// HandleIdempotent registers a mutation that honours idempotency keys: the
// Idempotency-Key header (also spelled idempotency_key) or a top-level
// idempotencyKey / idempotency_key string in the JSON body.
func (rt *Router) HandleIdempotent(method, path string, auth Auth, h HandlerFunc) {
	rt.HandleIdempotentBy(method, path, auth, IdemRules{}, h)
}

// IdemRules are a surface's own idempotency rules, where they differ from
// the interface's (the Agentic Commerce Protocol's, CONTRACT.md section
// 18): the zero value is the interface's.
type IdemRules struct {
	// Required refuses a request without a key: VALIDATION_ERROR on the
	// field "Idempotency-Key", with details {"idempotency": "required"}.
	Required bool
	// NoWait answers a key whose first request is still running at once,
	// DUPLICATE_REQUEST with details {"idempotency": "in_flight"} and a
	// Retry-After, instead of waiting for its answer. A key used with other
	// parameters has details {"idempotency": "conflict"}.
	NoWait bool
	// HeaderOnly takes the key from the Idempotency-Key header alone: the
	// body is all parameters.
	HeaderOnly bool
	// Owner scopes the keys (the caller's user when nil): ACP keys belong
	// to the credential and the endpoint.
	Owner func(r *http.Request, p *Principal) string
}

// HandleIdempotentBy is HandleIdempotent under a surface's own rules.
func (rt *Router) HandleIdempotentBy(method, path string, auth Auth, rules IdemRules, h HandlerFunc) {
	rt.Handle(method, path, auth, rt.Idempotent(method+" "+path, rules, h))
}

// Idempotent is h under rules for route ("METHOD /path"), for a surface
// that checks something of its own first (ACP's API-Version).
func (rt *Router) Idempotent(route string, rules IdemRules, h HandlerFunc) HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return rt.idempotent(w, r, route, rules, h)
	}
}

// refusal is DUPLICATE_REQUEST for what (conflict, in_flight): a
// surface with rules of its own is told which, in the details.
func (rules IdemRules) refusal(what, message string) *market.Error {
	e := market.Errorf(market.CodeDuplicateRequest, "%s", message)
	if rules.Required || rules.NoWait || rules.HeaderOnly || rules.Owner != nil {
		e = e.WithDetails(map[string]any{"idempotency": what})
		if what == "in_flight" {
			e.Details["retry_after"] = int64(1)
		}
	}
	return e
}

// bodyKeys are the body fields that carry a key; they are not part of the
// parameters compared between a request and its retry.
var bodyKeys = []string{"idempotencyKey", "idempotency_key"}

// idemPoll is how often, and idemWait how long, a request waits for a
// concurrent request with its key to finish before answering 409.
const (
	idemPoll = 20 * time.Millisecond
	idemWait = 15 * time.Second
)

// A claim's lease: the process running the request renews it every
// leaseRenew while the handler works; when the process dies the lease runs
// out within leaseTTL and a retry takes the claim over. The lease runs on
// real time (the sandbox clock may jump), and leaseTTL is well inside
// idemWait, so a retry that waits finds a dead claim free before it gives up.
var (
	leaseTTL   = 6 * time.Second
	leaseRenew = 2 * time.Second
)

func (rt *Router) idempotent(w http.ResponseWriter, r *http.Request, route string, rules IdemRules, h HandlerFunc) error {
	p := PrincipalOf(r)
	if p == nil || rt.idem == nil {
		return h(w, r)
	}
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return market.Errorf(market.CodePayloadTooLarge, "the request body is larger than 1 MiB")
		}
		return market.Invalid(market.FieldError{Field: "body", Message: "could not be read"})
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	key, params := idemKey(r, raw)
	if rules.HeaderOnly {
		key, params = r.Header.Get("Idempotency-Key"), raw
		if canon, ok := canonicalJSON(raw); ok {
			params = canon
		}
	}
	if key == "" && rules.Required {
		return market.Invalid(market.FieldError{Field: "Idempotency-Key", AsSent: true,
			Message: "is required on every POST"}).WithDetails(map[string]any{"idempotency": "required"})
	}
	if key == "" {
		return h(w, r)
	}
	if len(key) > 255 || !printable(key) {
		return market.Invalid(market.FieldError{Field: "idempotency_key", Message: "must be 1 to 255 printable characters"})
	}
	sum := sha256.Sum256(append([]byte(route+"\n"), params...))
	now := rt.clock.Now()
	var owner string
	if rules.Owner != nil {
		owner = rules.Owner(r, p)
	} else {
		owner = p.User.ID
	}
	rec := &idempotency.Record{OwnerID: owner, Key: key, Route: route, Hash: hex.EncodeToString(sum[:]), ExpiresAt: now.Add(IdempotencyTTL),
		LeaseOwner: rt.instance, LeaseUntil: time.Now().Add(leaseTTL)}
	ctx := r.Context()
	prior, claimed, err := rt.idem.ClaimIdempotency(ctx, rec, now)
	if err != nil {
		return err
	}
	if !claimed {
		if took, err := rt.replay(ctx, w, rec, prior, rules); err != nil || !took {
			return err
		}
		// The claim's process died: this request runs it again. The
		// services find what the first run did under the key and finish it.
		rt.log.Warn("idempotency claim taken over", "request_id", RequestID(ctx), "route", route)
	}
	return rt.runClaimed(w, r.WithContext(market.WithIdempotencyKey(ctx, key)), rec, h)
}

// runClaimed runs h under a claimed key, renewing its lease while h works,
// and stores the answer (or gives the key up after a failure of ours).
func (rt *Router) runClaimed(w http.ResponseWriter, r *http.Request, rec *idempotency.Record, h HandlerFunc) error {
	ctx := r.Context()
	stop := rt.keepLease(ctx, rec)
	rw := &recorder{ResponseWriter: w}
	herr := h(rw, r)
	if herr != nil {
		writeError(rw, r, herr)
	}
	stop()
	// The answer is kept even if the client went away: a retry must see it.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	var err error
	if rw.status >= 500 {
		err = rt.idem.ReleaseIdempotency(sctx, rec.OwnerID, rec.Key, rec.LeaseOwner)
	} else {
		err = rt.idem.FinishIdempotency(sctx, rec.OwnerID, rec.Key, rw.status, rw.body.Bytes())
	}
	if err != nil {
		rt.log.Error("idempotency record not saved", "request_id", RequestID(ctx), "err", err.Error())
	}
	if herr != nil {
		e := market.ErrorOf(herr)
		info(r).code = e.Code
		if e.Code == market.CodeInternal {
			rt.log.Error("internal error", "request_id", RequestID(ctx), "route", rec.Route, "err", herr.Error())
		}
	}
	return nil
}

// keepLease renews rec's lease until the returned stop is called.
func (rt *Router) keepLease(ctx context.Context, rec *idempotency.Record) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(leaseRenew)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), leaseRenew)
				held, err := rt.idem.RenewIdempotency(rctx, rec.OwnerID, rec.Key, rec.LeaseOwner, time.Now().Add(leaseTTL))
				cancel()
				if err != nil || !held {
					rt.log.Warn("idempotency lease not renewed", "request_id", RequestID(ctx), "held", held, "err", fmt.Sprint(err))
				}
			}
		}
	}()
	return func() { close(done); <-finished }
}

// replay answers a request whose key was seen before: with the stored
// answer once there is one, or 409 when the parameters differ or the first
// request is still running after idemWait. It returns true, having written
// nothing, when it took over a claim whose lease ran out.
func (rt *Router) replay(ctx context.Context, w http.ResponseWriter, rec, prior *idempotency.Record, rules IdemRules) (bool, error) {
	deadline := time.Now().Add(idemWait)
	if rules.NoWait {
		deadline = time.Now()
	}
	for {
		if prior.Route != rec.Route || prior.Hash != rec.Hash {
			return false, rules.refusal("conflict", "this idempotency key was used with different parameters; use a new key for a new request")
		}
		if prior.Done {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(prior.Status)
			_, _ = w.Write(prior.Body)
			return false, nil
		}
		if realNow := time.Now(); !prior.LeaseUntil.After(realNow) {
			took, err := rt.idem.TakeOverIdempotency(ctx, rec.OwnerID, rec.Key, rec.LeaseOwner, realNow.Add(leaseTTL), realNow)
			if err != nil || took {
				return took, err
			}
		}
		if !time.Now().Before(deadline) {
			return false, rules.refusal("in_flight", "a request with this idempotency key is still in progress; retry shortly")
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(idemPoll):
		}
		next, err := rt.idem.IdempotencyRecord(ctx, rec.OwnerID, rec.Key)
		if market.CodeOf(err) == market.CodeNotFound {
			// The first request failed on our side and gave the key up.
			return false, rules.refusal("in_flight", "the first request with this idempotency key failed; retry it")
		}
		if err != nil {
			return false, err
		}
		prior = next
	}
}

// idemKey finds the request's key and the parameters that identify it: the
// body as canonical JSON (sorted keys, the key field itself left out), or
// the raw body when it is not a JSON object.
func idemKey(r *http.Request, raw []byte) (string, []byte) {
	key := r.Header.Get("Idempotency-Key")
	if key == "" {
		key = r.Header.Get("Idempotency_Key")
	}
	obj, ok := jsonObject(raw)
	if !ok {
		return key, raw
	}
	for _, f := range bodyKeys {
		if v, ok := obj[f].(string); ok && key == "" {
			key = v
		}
		delete(obj, f)
	}
	canon, err := json.Marshal(obj)
	if err != nil {
		return key, raw
	}
	return key, canon
}

// jsonObject decodes raw as a JSON object, numbers kept as written.
func jsonObject(raw []byte) (map[string]any, bool) {
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(bytes.TrimSpace(raw)) == 0 || dec.Decode(&obj) != nil || obj == nil {
		return nil, false
	}
	return obj, true
}

// canonicalJSON is a JSON object with its keys sorted, so two bodies that
// differ only in key order (or spacing) are the same parameters.
func canonicalJSON(raw []byte) ([]byte, bool) {
	obj, ok := jsonObject(raw)
	if !ok {
		return nil, false
	}
	canon, err := json.Marshal(obj)
	return canon, err == nil
}

func printable(s string) bool {
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// recorder passes a response through and keeps a copy of it.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.body.Write(b)
	return w.ResponseWriter.Write(b)
}

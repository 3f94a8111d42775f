package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"marketplace/internal/market"
)

// Idempotency keys (CONTRACT.md section 7): a retried request with the same
// key and the same parameters gets the first answer again, with header
// Idempotent-Replayed: true, and changes nothing; the same key with other
// parameters is 409 DUPLICATE_REQUEST. Keys are per owner (an agent's key is
// its owner's) and kept for IdempotencyTTL.
const IdempotencyTTL = 24 * time.Hour

// IdemRecord is the stored state of one key.
type IdemRecord struct {
	OwnerID   string
	Key       string
	Route     string
	Hash      string
	Done      bool
	Status    int
	Body      []byte
	ExpiresAt time.Time
}

// IdemStore keeps idempotency records.
type IdemStore interface {
	// ClaimIdempotency inserts rec as started, or, when the key exists and
	// has not expired, returns the stored record and false. An expired
	// record is replaced.
	ClaimIdempotency(ctx context.Context, rec *IdemRecord, now time.Time) (*IdemRecord, bool, error)
	// FinishIdempotency stores the answer of a claimed key.
	FinishIdempotency(ctx context.Context, ownerID, key string, status int, body []byte) error
	// ReleaseIdempotency forgets a claimed key whose request failed on our
	// side, so a retry runs again.
	ReleaseIdempotency(ctx context.Context, ownerID, key string) error
	IdempotencyRecord(ctx context.Context, ownerID, key string) (*IdemRecord, error)
}

// SetIdempotency gives the router its key store. Routes registered with
// HandleIdempotent need one.
func (rt *Router) SetIdempotency(s IdemStore) { rt.idem = s }

// HandleIdempotent registers a mutation that honours idempotency keys: the
// Idempotency-Key header (also spelled idempotency_key) or a top-level
// idempotencyKey / idempotency_key string in the JSON body.
func (rt *Router) HandleIdempotent(method, path string, auth Auth, h HandlerFunc) {
	route := method + " " + path
	rt.Handle(method, path, auth, func(w http.ResponseWriter, r *http.Request) error {
		return rt.idempotent(w, r, route, h)
	})
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

func (rt *Router) idempotent(w http.ResponseWriter, r *http.Request, route string, h HandlerFunc) error {
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
	if key == "" {
		return h(w, r)
	}
	if len(key) > 255 || !printable(key) {
		return market.Invalid(market.FieldError{Field: "idempotencyKey", Message: "must be 1 to 255 printable characters"})
	}
	sum := sha256.Sum256(append([]byte(route+"\n"), params...))
	now := rt.clock.Now()
	rec := &IdemRecord{OwnerID: p.User.ID, Key: key, Route: route, Hash: hex.EncodeToString(sum[:]), ExpiresAt: now.Add(IdempotencyTTL)}
	ctx := r.Context()
	prior, claimed, err := rt.idem.ClaimIdempotency(ctx, rec, now)
	if err != nil {
		return err
	}
	if !claimed {
		return rt.replay(ctx, w, rec, prior)
	}
	rw := &recorder{ResponseWriter: w}
	herr := h(rw, r)
	if herr != nil {
		writeError(rw, r, herr)
	}
	// The answer is kept even if the client went away: a retry must see it.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if rw.status >= 500 {
		err = rt.idem.ReleaseIdempotency(sctx, rec.OwnerID, key)
	} else {
		err = rt.idem.FinishIdempotency(sctx, rec.OwnerID, key, rw.status, rw.body.Bytes())
	}
	if err != nil {
		rt.log.Error("idempotency record not saved", "request_id", RequestID(ctx), "err", err.Error())
	}
	if herr != nil {
		e := market.ErrorOf(herr)
		info(r).code = e.Code
		if e.Code == market.CodeInternal {
			rt.log.Error("internal error", "request_id", RequestID(ctx), "route", route, "err", herr.Error())
		}
	}
	return nil
}

// replay answers a request whose key was seen before.
func (rt *Router) replay(ctx context.Context, w http.ResponseWriter, rec, prior *IdemRecord) error {
	deadline := time.Now().Add(idemWait)
	for {
		if prior.Route != rec.Route || prior.Hash != rec.Hash {
			return market.Errorf(market.CodeDuplicateRequest,
				"this idempotency key was used with different parameters; use a new key for a new request")
		}
		if prior.Done {
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			w.Header().Set("Cache-Control", "no-store")
			w.Header().Set("Idempotent-Replayed", "true")
			w.WriteHeader(prior.Status)
			_, _ = w.Write(prior.Body)
			return nil
		}
		if time.Now().After(deadline) {
			return market.Errorf(market.CodeDuplicateRequest, "a request with this idempotency key is still in progress; retry shortly")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(idemPoll):
		}
		next, err := rt.idem.IdempotencyRecord(ctx, rec.OwnerID, rec.Key)
		if market.CodeOf(err) == market.CodeNotFound {
			// The first request failed on our side and gave the key up.
			return market.Errorf(market.CodeDuplicateRequest, "the first request with this idempotency key failed; retry it")
		}
		if err != nil {
			return err
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
	var obj map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if len(bytes.TrimSpace(raw)) == 0 || dec.Decode(&obj) != nil || obj == nil {
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

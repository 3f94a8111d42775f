package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"time"

	"marketplace/internal/idempotency"
	"marketplace/internal/market"
)

// CallIdempotent runs fn as the route (registered on rt with
// HandleIdempotent) would run a request whose JSON body is args, under the
// same idempotency record: the owner's key, the route and the body's
// canonical parameters. A tool call and an HTTP request with one key are
// therefore one operation: whichever comes second gets the first one's
// answer (the data of its envelope, or its refusal), and the same key with
// other parameters is DUPLICATE_REQUEST. The key is taken from args
// (idempotency_key); without one fn simply runs. fn runs with the key in its
// context (market.WithIdempotencyKey), as the services expect.
func (rt *Router) CallIdempotent(ctx context.Context, p *Principal, route string, args json.RawMessage,
	fn func(ctx context.Context) (any, error)) (any, error) {
	key, params := idemKey(&http.Request{Header: http.Header{}}, args)
	if key == "" || p == nil || rt.idem == nil {
		return fn(ctx)
	}
	if len(key) > 255 || !printable(key) {
		return nil, market.Invalid(market.FieldError{Field: "idempotency_key", Message: "must be 1 to 255 printable characters"})
	}
	// The answer is written as the route writes it, so an HTTP retry
	// replays it as is.
	ri := &requestInfo{route: route, surface: rt.surface, actor: p.Actor}
	r := (&http.Request{Method: http.MethodPost, Header: http.Header{}}).WithContext(context.WithValue(ctx, keyEntity, ri))
	sum := sha256.Sum256(append([]byte(route+"\n"), params...))
	now := rt.clock.Now()
	rec := &idempotency.Record{OwnerID: p.User.ID, Key: key, Route: route, Hash: hex.EncodeToString(sum[:]), ExpiresAt: now.Add(IdempotencyTTL),
		LeaseOwner: rt.instance, LeaseUntil: time.Now().Add(leaseTTL)}
	prior, claimed, err := rt.idem.ClaimIdempotency(ctx, rec, now)
	if err != nil {
		return nil, err
	}
	if !claimed {
		w := httptest.NewRecorder()
		took, err := rt.replay(ctx, w, rec, prior, IdemRules{})
		if err != nil {
			return nil, err
		}
		if !took {
			return unwrapEnvelope(w.Body.Bytes())
		}
		rt.log.Warn("idempotency claim taken over", "request_id", RequestID(ctx), "route", route)
	}
	var out any
	var ferr error
	err = rt.runClaimed(httptest.NewRecorder(), r.WithContext(market.WithIdempotencyKey(r.Context(), key)), rec,
		func(w http.ResponseWriter, r *http.Request) error {
			if out, ferr = fn(r.Context()); ferr != nil {
				return ferr
			}
			return OK(w, r, http.StatusCreated, out)
		})
	if err != nil {
		return nil, err
	}
	return out, ferr
}

// unwrapEnvelope is a stored answer as a call's outcome: the data of a
// success envelope, or the refusal of an error envelope.
func unwrapEnvelope(body []byte) (any, error) {
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *struct {
			Code    market.Code    `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		return nil, market.Internal(err)
	}
	if env.Success {
		return env.Data, nil
	}
	if env.Error == nil {
		return nil, market.Internal(errors.New("a stored error envelope without an error"))
	}
	e := market.Errorf(env.Error.Code, "%s", env.Error.Message)
	if fields, ok := env.Error.Details["fields"].([]any); ok {
		for _, f := range fields {
			m, _ := f.(map[string]any)
			field, _ := m["field"].(string)
			msg, _ := m["message"].(string)
			e.Fields = append(e.Fields, market.FieldError{Field: field, Message: msg, AsSent: true})
		}
		delete(env.Error.Details, "fields")
	}
	if len(env.Error.Details) > 0 {
		e = e.WithDetails(env.Error.Details)
	}
	return nil, e
}

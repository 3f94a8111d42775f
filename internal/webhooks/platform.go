package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Agent platforms' endpoints (CONTRACT.md section 18): the webhook URL
// of a platform connected for ACP, owned by the platform's account. It
// receives the events of its orders in ACP's shape (Options.PlatformBody)
// signed with Merchant-Signature, with the same deliveries, retries and
// log as every endpoint. Only SinkTo sends to it: it matches no
// recipient's events.

// KindPlatform is the endpoint kind of an agent platform.
const KindPlatform = "acp"

// NewPlatformEndpoint is the endpoint of a platform's account, to insert
// with the platform; secret signs its deliveries.
func NewPlatformEndpoint(accountID, url, secret string, now time.Time) *Endpoint {
	return &Endpoint{ID: market.NewID(), UserID: accountID, Kind: KindPlatform, URL: url, Secret: secret,
		Events: []string{AllEvents}, Snake: true, Enabled: true, CreatedAt: now, UpdatedAt: now}
}

// SinkTo enqueues a delivery of e to endpoint id, in the transaction that
// records e; a disabled or deleted endpoint gets nothing.
func (s *Service) SinkTo(ctx context.Context, tx Tx, endpointID string, e *events.Event) error {
	ep, err := tx.WebhookEndpoint(ctx, endpointID)
	if market.CodeOf(err) == market.CodeNotFound {
		return nil
	}
	if err != nil || !ep.Enabled {
		return err
	}
	_, err = s.enqueue(ctx, tx, ep, e)
	return err
}

// platformEndpoint reads the platform endpoint id.
func platformEndpoint(ctx context.Context, tx Tx, id string) (*Endpoint, error) {
	ep, err := tx.WebhookEndpoint(ctx, id)
	if err == nil && ep.Kind != KindPlatform {
		err = market.NotFound("webhook endpoint")
	}
	return ep, err
}

// PlatformDeliveries lists a platform endpoint's deliveries, newest
// first (the caller decides who may see them).
func (s *Service) PlatformDeliveries(ctx context.Context, endpointID string, limit int) ([]Delivery, error) {
	tx := s.store.Read()
	if _, err := platformEndpoint(ctx, tx, endpointID); err != nil {
		return nil, err
	}
	return tx.WebhookDeliveries(ctx, endpointID, clampLimit(limit))
}

// DisablePlatform stops a platform endpoint's deliveries (the platform
// was disconnected).
func (s *Service) DisablePlatform(ctx context.Context, endpointID string) error {
	return s.store.InTx(ctx, func(tx Tx) error {
		ep, err := platformEndpoint(ctx, tx, endpointID)
		if market.CodeOf(err) == market.CodeNotFound {
			return nil
		}
		if err != nil {
			return err
		}
		ep.Enabled, ep.DisabledReason, ep.UpdatedAt = false, "the platform was disconnected", s.clock.Now()
		return tx.UpdateWebhookEndpoint(ctx, ep)
	})
}

// MerchantSignature is ACP's Merchant-Signature of body sent at unix
// time t: "t=<t>,v1=<hex HMAC-SHA256 of "<t>.<body>">", keyed with the
// secret string's bytes.
func MerchantSignature(secret string, t int64, body []byte) string {
	ts := strconv.FormatInt(t, 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "t=" + ts + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// sendPlatform posts an ACP order event to a platform endpoint.
func (s *Service) sendPlatform(ctx context.Context, ep *Endpoint, e *events.Event) Result {
	if s.platformBody == nil {
		return Result{Err: "platform events cannot be encoded here"}
	}
	body, err := s.platformBody(ctx, e)
	if err != nil {
		return Result{Err: "the event could not be encoded"}
	}
	return s.sender.post(ctx, ep.URL, body, func(h http.Header, now time.Time) error {
		h.Set("Merchant-Signature", MerchantSignature(ep.Secret, now.Unix(), body))
		h.Set("Request-Id", e.ID)
		return nil
	})
}

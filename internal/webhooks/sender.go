package webhooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Limits of one attempt (CONTRACT.md section 12).
const (
	SendTimeout  = 10 * time.Second
	MaxReadBytes = 64 << 10
)

// Sender posts signed payloads. One Sender (and its keep-alive
// connections) serves every delivery.
type Sender struct {
	Client *http.Client
}

// NewSender builds a sender whose dialer asks g about every address it
// connects to. It uses no proxy (a proxy would connect on its behalf,
// unchecked) and follows no redirect: a 3xx is the answer.
func NewSender(g *Guard) *Sender {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second, Control: g.Control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          256,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: SendTimeout,
	}
	return &Sender{Client: &http.Client{
		Transport: tr,
		Timeout:   SendTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}}
}

// Sign is the Standard Webhooks signature of body: "v1," and the base64
// HMAC-SHA256, keyed with the decoded secret, of "id.timestamp.body".
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("webhook secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Result is the outcome of one attempt.
type Result struct {
	StatusCode int
	Err        string
	Duration   time.Duration
}

// OK reports a 2xx.
func (r Result) OK() bool { return r.Err == "" && r.StatusCode >= 200 && r.StatusCode < 300 }

// Send posts body to url once, signed for message id at the current real
// time.
func (s *Sender) Send(ctx context.Context, url, secret, id string, body []byte) Result {
	return s.post(ctx, url, body, func(h http.Header, now time.Time) error {
		ts := now.Unix()
		sig, err := Sign(secret, id, ts, body)
		if err != nil {
			return err
		}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
		h.Set("webhook-signature", sig)
		return nil
	})
}

// post sends body to url once with the headers sign sets for the time
// of sending.
func (s *Sender) post(ctx context.Context, url string, body []byte, sign func(h http.Header, now time.Time) error) Result {
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, SendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return Result{Err: "invalid URL", Duration: time.Since(start)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "marketplace-webhooks/1")
	if err := sign(req.Header, start); err != nil {
		return Result{Err: "the endpoint's secret is unusable"}
	}
	resp, err := s.Client.Do(req)
	if err != nil {
		return Result{Err: describe(err), Duration: time.Since(start)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxReadBytes))
	resp.Body.Close()
	r := Result{StatusCode: resp.StatusCode, Duration: time.Since(start)}
	if !r.OK() {
		r.Err = "HTTP " + strconv.Itoa(resp.StatusCode)
		if resp.StatusCode >= 300 && resp.StatusCode < 400 {
			r.Err += " (redirects are not followed)"
		}
	}
	return r
}

// describe turns a transport error into a short message for the delivery
// log.
func describe(err error) string {
	var refused *ErrAddressRefused
	var ne net.Error
	switch {
	case errors.As(err, &refused):
		return refused.Error()
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "timed out after " + SendTimeout.String()
	}
	msg := err.Error()
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		msg = msg[i+2:]
	}
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return "request failed: " + msg
}

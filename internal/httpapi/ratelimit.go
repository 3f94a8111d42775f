package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/market"
	"marketplace/internal/ratelimit"
	"marketplace/internal/settings"
)

// Rate limits per route (CONTRACT.md sections 10 and 15), applied after
// authentication, before the handler:
//
//   - Agent keys on /v1 and /mcp: the spec's class table (read, write,
//     search per minute), tier default, verified_seller or partner.
//   - Agent keys on /api/v1: the spec's request table, tier new, verified or
//     trusted (partner owners get trusted's row, the table's highest). The
//     burst is a second sliding window of `burst` requests in any 10
//     seconds; a request must fit both.
//   - Humans (bearer): ratelimit.human.per_minute per user; calls without
//     credentials: ratelimit.anonymous.per_minute per address.
//
// Every value is admin config (ratelimit.*), cached for a second (a change
// through this process applies to the next request), and the owner's trust
// tier is read with the key at every authentication, so an admin's change
// of tier applies to the next request. A key's /v1 and /mcp calls share their
// class budgets; its /api/v1 budget is separate.
//
// Health, the directory, the manifest, the OpenAPI documents, photos and
// the hosted pages are not limited.

// RateLimits is what the router limits with.
type RateLimits struct {
	// Limiter is the shared limiter (Redis when configured), unscaled.
	Limiter ratelimit.Limiter
	// Requests counts the requests themselves; Limiter when nil. With
	// Redis it is ratelimit.Leased, which spares busy keys a round trip
	// per request; the abuse count stays on Limiter, exact.
	Requests ratelimit.Limiter
	// Scale multiplies every limit (MARKETPLACE_RATE_LIMIT_SCALE); 0 is off.
	Scale    float64
	Settings *settings.Service
	// Freeze freezes a key that keeps sending after 429s
	// (agents.Service.SystemFreeze).
	Freeze func(ctx context.Context, keyID string, reason agents.FrozenReason, requestID string, details map[string]any) error
	// MCPClass names the class of an MCP tool: "read", "search" or
	// "write" (unknown tools count as write).
	MCPClass func(tool string) string

	scaled *ratelimit.Scaled
	cache  limitCache
}

// limitCacheFor is how long limit values are cached. Every request needs
// them, and reading the config's version from the store each time cost
// more than the limiter; a change made through this process applies at
// once (settings.Service.Changes), one made on another replica within this.
const limitCacheFor = time.Second

type limitCache struct {
	mu      sync.Mutex
	at      time.Time // system time of the last refresh
	changes int64
	vals    map[settings.Key[int64]]int64
}

// ints reads integer settings through the cache.
func (l *RateLimits) ints(ctx context.Context, keys ...settings.Key[int64]) ([]int64, error) {
	c := &l.cache
	c.mu.Lock()
	defer c.mu.Unlock()
	if n := l.Settings.Changes(); c.vals == nil || n != c.changes || time.Since(c.at) >= limitCacheFor {
		c.vals, c.changes, c.at = map[settings.Key[int64]]int64{}, n, time.Now()
	}
	out := make([]int64, len(keys))
	var missing []settings.Key[int64]
	for i, k := range keys {
		v, ok := c.vals[k]
		if !ok {
			missing = append(missing, k)
		}
		out[i] = v
	}
	if len(missing) == 0 {
		return out, nil
	}
	v, err := l.Settings.Ints(ctx, missing...)
	if err != nil {
		return nil, err
	}
	for i, k := range missing {
		c.vals[k] = v[i]
	}
	for i, k := range keys {
		out[i] = c.vals[k]
	}
	return out, nil
}

// Rate-limit windows.
const (
	limitWindow = time.Minute
	burstWindow = 10 * time.Second
	// abuseWindow is the span over which refused requests are counted
	// toward the abuse freeze.
	abuseWindow = 10 * time.Minute
)

// prepare readies l for the router: nil when the limits are off (no
// limits, or a scale of 0).
func (l *RateLimits) prepare() *RateLimits {
	if l == nil || l.Scale == 0 {
		return nil
	}
	requests := l.Requests
	if requests == nil {
		requests = l.Limiter
	}
	l.scaled = ratelimit.NewScaled(requests, l.Scale)
	return l
}

// RateLimited reports whether a route (method and pattern as registered)
// is rate limited; the OpenAPI documents use it to document the headers
// and the 429 on exactly these routes.
func RateLimited(method, pattern string) bool {
	if pattern != "/mcp" && !strings.HasPrefix(pattern, "/v1/") && !strings.HasPrefix(pattern, "/api/v1/") {
		return false
	}
	switch pattern {
	case "/api/v1/", "/api/v1/health", "/api/v1/health/deep", "/api/v1/manifest", "/api/v1/openapi.json", "/v1/openapi.json":
		return false
	}
	// Photos and avatars are the static bytes of listing and profile pages.
	if method == http.MethodGet && (strings.HasPrefix(pattern, "/api/v1/photos/") || strings.HasPrefix(pattern, "/api/v1/avatars/")) {
		return false
	}
	return true
}

// bucket is one sliding window a request counts against.
type bucket struct {
	key   string
	limit ratelimit.Limit
}

// limit counts the request against its windows, sets the X-RateLimit-*
// headers and answers RATE_LIMITED when a window is full.
func (rt *Router) limit(w http.ResponseWriter, r *http.Request, method, pattern string, p *Principal) error {
	l := rt.limits
	if l == nil || !RateLimited(method, pattern) {
		return nil
	}
	ctx := r.Context()
	buckets, err := l.buckets(r, method, pattern, p)
	if err != nil {
		return err
	}
	var shown *ratelimit.Decision
	for _, b := range buckets {
		d, err := l.scaled.Allow(ctx, b.key, b.limit)
		if err != nil {
			return market.Internal(err)
		}
		// The headers speak of the window closest to refusing.
		if shown == nil || !d.Allowed || d.Remaining < shown.Remaining && shown.Allowed {
			shown = &d
		}
		if !d.Allowed {
			break
		}
	}
	if shown == nil {
		return nil
	}
	h := w.Header()
	h.Set("X-RateLimit-Limit", strconv.Itoa(shown.Limit))
	h.Set("X-RateLimit-Remaining", strconv.Itoa(shown.Remaining))
	h.Set("X-RateLimit-Reset", strconv.FormatInt(ceilUnix(shown.Reset), 10))
	if shown.Allowed {
		return nil
	}
	secs := int64(math.Ceil(shown.RetryAfter.Seconds()))
	secs = max(secs, 1)
	if p != nil && p.Key != nil {
		if err := l.abuse(ctx, p.Key.ID); err != nil {
			return err
		}
	}
	return market.Errorf(market.CodeRateLimited, "rate limit of %d requests reached; retry after %d seconds", shown.Limit, secs).
		WithDetails(map[string]any{"retry_after": secs})
}

// ceilUnix is t in Unix seconds, rounded up: the window has certainly
// moved by then.
func ceilUnix(t time.Time) int64 {
	s := t.Unix()
	if t.Nanosecond() > 0 {
		s++
	}
	return s
}

// abuse counts one refused request of key; the one past
// ratelimit.abuse_threshold in abuseWindow freezes the key. Refusals are
// counted in a window of their own, unscaled: the threshold is exact.
func (l *RateLimits) abuse(ctx context.Context, keyID string) error {
	v, err := l.ints(ctx, settings.AbuseThreshold)
	if err != nil {
		return err
	}
	threshold := v[0]
	d, err := l.Limiter.Allow(ctx, "rl:abuse:"+keyID, ratelimit.Limit{Max: int(threshold), Window: abuseWindow})
	if err != nil {
		return market.Internal(err)
	}
	if d.Allowed {
		return nil
	}
	if l.Freeze != nil {
		ctx = context.WithoutCancel(ctx)
		if err := l.Freeze(ctx, keyID, agents.FrozenRateLimitAbuse, RequestID(ctx), map[string]any{
			"refusedRequests": threshold + 1, "windowMinutes": int(abuseWindow / time.Minute), "threshold": threshold}); err != nil {
			return err
		}
	}
	return market.Errorf(market.CodeAgentFrozen,
		"this agent key kept sending after being rate limited and is now frozen; the owner can unfreeze it")
}

// buckets are the windows a request counts against.
func (l *RateLimits) buckets(r *http.Request, method, pattern string, p *Principal) ([]bucket, error) {
	ctx := r.Context()
	minute := func(key string, cfg settings.Key[int64]) ([]bucket, error) {
		n, err := l.ints(ctx, cfg)
		if err != nil {
			return nil, err
		}
		return []bucket{{key: key, limit: ratelimit.Limit{Max: int(n[0]), Window: limitWindow}}}, nil
	}
	switch {
	case p == nil:
		return minute("rl:ip:"+clientIP(r), settings.AnonymousPerMinute)
	case p.PlatformID != "":
		return minute("rl:p:"+p.PlatformID, settings.HumanPerMinute)
	case p.Key == nil:
		return minute("rl:u:"+p.User.ID, settings.HumanPerMinute)
	}
	key := "rl:k:" + p.Key.ID
	if strings.HasPrefix(pattern, "/api/v1/") {
		tier := apiTier(p.User.TrustTier)
		v, err := l.ints(ctx, settings.APIBurst(tier), settings.APIPerMinute(tier))
		if err != nil {
			return nil, err
		}
		// The burst first: a request the minute window then refuses has
		// used a burst slot, which errs on the safe side.
		return []bucket{
			{key: key + ":api:burst", limit: ratelimit.Limit{Max: int(v[0]), Window: burstWindow}},
			{key: key + ":api", limit: ratelimit.Limit{Max: int(v[1]), Window: limitWindow}},
		}, nil
	}
	var classes []string
	if pattern == "/mcp" {
		classes = l.mcpClasses(r)
	} else {
		classes = []string{v1Class(method, pattern)}
	}
	tier := v1Tier(p.User.TrustTier)
	keys := make([]settings.Key[int64], len(classes))
	for i, c := range classes {
		keys[i] = settings.V1PerMinute(tier, c)
	}
	v, err := l.ints(ctx, keys...)
	if err != nil {
		return nil, err
	}
	out := make([]bucket, len(classes))
	for i, c := range classes {
		out[i] = bucket{key: key + ":v1:" + c, limit: ratelimit.Limit{Max: int(v[i]), Window: limitWindow}}
	}
	return out, nil
}

// v1Class is the spec's operation class of a /v1 route.
func v1Class(method, pattern string) string {
	switch {
	case strings.HasPrefix(pattern, "/v1/search"):
		return "search"
	case method == http.MethodGet || method == http.MethodHead:
		return "read"
	}
	return "write"
}

// v1Tier maps the owner's trust tier onto the class table (CONTRACT.md 10).
func v1Tier(t accounts.TrustTier) string {
	switch t {
	case accounts.TierVerified, accounts.TierTrusted:
		return "verified_seller"
	case accounts.TierPartner:
		return "partner"
	}
	return "default"
}

// apiTier maps the owner's trust tier onto the request table.
func apiTier(t accounts.TrustTier) string {
	switch t {
	case accounts.TierVerified:
		return "verified"
	case accounts.TierTrusted, accounts.TierPartner:
		return "trusted"
	}
	return "new"
}

// maxPeek bounds how much of an MCP body is read to classify it; a larger
// body counts as one write (the MCP server refuses it anyway).
const maxPeek = 1 << 20

// mcpClasses classifies an MCP request: each tools/call message counts once
// in its tool's class; a request without one (initialize, tools/list, a
// notification) counts once as a read. The body is put back for the
// handler.
func (l *RateLimits) mcpClasses(r *http.Request) []string {
	if r.Body == nil {
		return []string{"read"}
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxPeek+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(b), r.Body), r.Body}
	if err != nil || len(b) > maxPeek {
		return []string{"write"}
	}
	type message struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var msgs []message
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		_ = json.Unmarshal(t, &msgs)
	} else {
		var m message
		if json.Unmarshal(t, &m) == nil {
			msgs = []message{m}
		}
	}
	var out []string
	for _, m := range msgs {
		if m.Method != "tools/call" {
			continue
		}
		class := "write"
		if l.MCPClass != nil {
			class = l.MCPClass(m.Params.Name)
		}
		out = append(out, class)
	}
	if len(out) == 0 {
		return []string{"read"}
	}
	return out
}

// Package webhooks delivers public events to the URLs users register
// (CONTRACT.md sections 9 and 12): the account's own endpoint
// (/auth/me/webhook, camelCase) and the owner's agent endpoints
// (/v1/agent/webhooks, snake_case, with an event filter). A delivery is
// made and enqueued in the transaction that records the event (Sink), sent
// by a job with Standard Webhooks signatures (Send), retried on real time,
// and every attempt is kept in its history.
package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"log/slog"
	"slices"
	"sync/atomic"
	"time"

	"marketplace/internal/events"
	"marketplace/internal/market"
)

// Endpoint kinds.
const (
	KindAccount = "account"
	KindAgent   = "agent"
)

// Delivery statuses.
const (
	StatusPending   = "pending"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
)

// MaxAgentEndpoints is how many agent endpoints one owner may have.
const MaxAgentEndpoints = 10

// AllEvents is the filter that matches every type.
const AllEvents = "*"

// Endpoint is one registered URL.
type Endpoint struct {
	ID             string
	UserID         string
	Kind           string
	URL            string
	Secret         string // whsec_<base64>
	Events         []string
	Snake          bool // payloads in snake_case (endpoints registered through /v1)
	Enabled        bool
	DisabledReason string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Matches reports whether the endpoint wants events of type typ. The test
// event is only ever sent on request, to one endpoint.
func (e *Endpoint) Matches(typ string) bool {
	if typ == events.TypeTest || e.Kind == KindPlatform {
		return false
	}
	return slices.Contains(e.Events, AllEvents) || slices.Contains(e.Events, typ)
}

// Attempt is one try at a delivery.
type Attempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"statusCode,omitempty"`
	Error      string    `json:"error,omitempty"`
	DurationMS int64     `json:"durationMs"`
	Replay     bool      `json:"replay,omitempty"`
}

// Delivery is one event sent to one endpoint.
type Delivery struct {
	ID             string
	EndpointID     string
	EventID        string
	EventType      string
	Status         string
	Attempts       int
	LastStatusCode *int
	LastError      string
	NextAttemptAt  *time.Time
	History        []Attempt
	CreatedAt      time.Time
	DeliveredAt    *time.Time
}

// Tx is what webhooks need from a transaction (store.Tx implements it).
type Tx interface {
	events.Tx
	NotificationPrefs(ctx context.Context, userID string) (events.Prefs, error)
	EventByID(ctx context.Context, id string) (*events.Event, error)

	// WebhookEndpoints lists a user's endpoints, oldest first.
	WebhookEndpoints(ctx context.Context, userID string) ([]Endpoint, error)
	// WebhookEndpoint reads one endpoint (NOT_FOUND when absent).
	WebhookEndpoint(ctx context.Context, id string) (*Endpoint, error)
	InsertWebhookEndpoint(ctx context.Context, e *Endpoint) error
	UpdateWebhookEndpoint(ctx context.Context, e *Endpoint) error
	// DeleteWebhookEndpoint removes an endpoint and its deliveries.
	DeleteWebhookEndpoint(ctx context.Context, id string) error

	InsertWebhookDelivery(ctx context.Context, d *Delivery) error
	// WebhookDelivery reads one delivery (NOT_FOUND when absent), locked
	// for update inside a transaction.
	WebhookDelivery(ctx context.Context, id string) (*Delivery, error)
	UpdateWebhookDelivery(ctx context.Context, d *Delivery) error
	// WebhookDeliveries lists an endpoint's deliveries, newest first.
	WebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]Delivery, error)
}

// Store runs transactions.
type Store interface {
	InTx(ctx context.Context, fn func(Tx) error) error
	Read() Tx
}

// Scheduler enqueues the sending of a delivery inside tx, the transaction
// that makes it; the job gives up after maxAttempts.
type Scheduler interface {
	ScheduleDelivery(ctx context.Context, tx Tx, deliveryID string, maxAttempts int) error
}

// DefaultRetryDelays is the contract's schedule: after the first attempt,
// retries about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (a day
// and a few hours in all).
var DefaultRetryDelays = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour,
	5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Options configure the service.
type Options struct {
	// Live requires https URLs.
	Live bool
	// AllowPrivate lets URLs reach loopback and private addresses (the
	// sandbox default).
	AllowPrivate bool
	// RetryDelays replaces DefaultRetryDelays.
	RetryDelays []time.Duration
	// Resolver resolves host names when a URL is set (net.DefaultResolver).
	Resolver Resolver
	Log      *slog.Logger
	// Scheduler enqueues deliveries (the job queue); nil: deliveries are
	// recorded and never sent.
	Scheduler Scheduler
	// PlatformBody is the body a platform endpoint receives for an event:
	// ACP's order event (the acp binding writes it).
	PlatformBody func(ctx context.Context, e *events.Event) ([]byte, error)
}

// Service manages endpoints and sends deliveries.
type Service struct {
	store  Store
	clock  market.Clock
	sched  Scheduler
	guard  *Guard
	sender *Sender
	delays atomic.Pointer[[]time.Duration] // replaced whole: workers read it while tests set it
	log    *slog.Logger
	// now is real time: deliveries, attempts and retries never follow the
	// sandbox clock.
	now          func() time.Time
	platformBody func(ctx context.Context, e *events.Event) ([]byte, error)
}

// NewService builds the service.
func NewService(st Store, clock market.Clock, opts Options) *Service {
	g := &Guard{Live: opts.Live, AllowPrivate: opts.AllowPrivate, Resolver: opts.Resolver}
	s := &Service{store: st, clock: clock, sched: opts.Scheduler, guard: g, sender: NewSender(g), log: opts.Log, now: time.Now,
		platformBody: opts.PlatformBody}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.SetRetryDelays(opts.RetryDelays)
	return s
}

// SetRetryDelays replaces the retry schedule (nil restores the default).
// Set it before deliveries are made: a job's attempt count is fixed when
// it is enqueued.
func (s *Service) SetRetryDelays(ds []time.Duration) {
	if len(ds) == 0 {
		ds = DefaultRetryDelays
	}
	ds = slices.Clone(ds)
	s.delays.Store(&ds)
}

func (s *Service) retryDelays() []time.Duration { return *s.delays.Load() }

// Guard is the URL and address policy.
func (s *Service) Guard() *Guard { return s.guard }

// MaxAttempts is the first attempt and every retry.
func (s *Service) MaxAttempts() int { return len(s.retryDelays()) + 1 }

// RetryDelay is the wait after failed attempt number attempt (1-based) of
// delivery id, with up to 10% jitter that depends only on the two (so the
// job queue and the delivery's nextAttemptAt agree).
func (s *Service) RetryDelay(id string, attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	delays := s.retryDelays()
	if attempt > len(delays) {
		attempt = len(delays)
	}
	d := delays[attempt-1]
	var h uint32 = 2166136261
	for _, c := range []byte(id) {
		h = (h ^ uint32(c)) * 16777619
	}
	h = (h ^ uint32(attempt)) * 16777619
	return d + time.Duration(int64(h%1000)*int64(d)/10000)
}

// NewSecret makes a signing secret: whsec_ and the base64 of 32 random
// bytes.
func NewSecret() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

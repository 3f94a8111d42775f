// Package app assembles the service from its configuration: store, services,
// job queue and HTTP surfaces. Main runs it; tests start it on port 0.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/redis/go-redis/v9"

	"marketplace/internal/accounts"
	"marketplace/internal/activity"
	"marketplace/internal/admin/users"
	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/audit"
	"marketplace/internal/checkouts"
	"marketplace/internal/config"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/acp"
	"marketplace/internal/httpapi/agentv1"
	"marketplace/internal/httpapi/apiv1"
	"marketplace/internal/httpapi/console"
	"marketplace/internal/httpapi/mcpserver"
	"marketplace/internal/httpapi/openapi"
	"marketplace/internal/httpapi/ops"
	"marketplace/internal/httpapi/web"
	"marketplace/internal/jobs"
	"marketplace/internal/listings"
	"marketplace/internal/listings/generator"
	"marketplace/internal/listings/photos"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/notify"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/ratelimit"
	"marketplace/internal/sandbox"
	"marketplace/internal/settings"
	"marketplace/internal/shipping"
	"marketplace/internal/store"
	"marketplace/internal/webhooks"
)

// Version is the service's version, set at build time with
// -ldflags "-X marketplace/internal/app.Version=...".
var Version = "0.1.0"

func version() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 7 {
				v += "+" + s.Value[:7]
			}
		}
	}
	return v
}

// App is the assembled service.
type App struct {
	Config   config.Config
	DB       *store.DB
	Queue    *jobs.Queue
	Router   *httpapi.Router
	Clock    market.Clock
	Log      *slog.Logger
	Accounts *accounts.Service
	Agents   *agents.Service
	Payments *payments.Service
	Listings *listings.Service
	Shipping *shipping.Service
	Orders   *orders.Service
	Messages *messaging.Service
	Offers   *offers.Service
	Notify   *notify.Service
	Photos   *listings.Photos
	Settings *settings.Service
	Webhooks *webhooks.Service
	MCP      *mcpserver.Server
	Feed     *events.FeedService
	// Checkouts are outside agents' checkout sessions (ACP).
	Checkouts *checkouts.Service

	// The accounts area's avatar uploads and chat link.
	Avatars   *accounts.Avatars
	ChatLinks *accounts.ChatLinks

	redis        *redis.Client
	sandboxClock *sandbox.Clock // sandbox mode only
	metrics      http.Handler
}

// Options are what tests may replace.
type Options struct {
	Logger *slog.Logger
	Clock  market.Clock
	// Generator replaces the configured AI step, and GenerationBudget the
	// time create waits for it (tests of the pending_ai path).
	Generator        listings.Generator
	GenerationBudget time.Duration
	// Gateway replaces the payment processor's money side (fault tests),
	// and BeforeSettle runs before each settle step (crash tests).
	Gateway      payments.Gateway
	BeforeSettle func(ctx context.Context, orderID string) error
	BeforeCharge func(ctx context.Context, orderID, listingID string) // orders.Options.BeforeCharge
	// RealTime is the clock of login throttles and lockouts, which run on
	// real time, never on the sandbox clock (CONTRACT.md section 10): the
	// system clock unless a test moves its own.
	RealTime market.Clock
	// Limiter replaces the rate limiter (tests), and NoRouteLimits leaves
	// the per-route limits off (test suites other than the limits' own).
	Limiter       ratelimit.Limiter
	NoRouteLimits bool
}

// Open connects the store and runs the migrations (goose, then River's).
func Open(ctx context.Context, cfg config.Config) (*store.DB, error) {
	var db *store.DB
	var err error
	if cfg.Postgres() {
		db, err = store.OpenPostgres(cfg.DatabaseURL)
	} else {
		db, err = store.OpenSQLiteMapped(cfg.SQLitePath(), cfg.SQLiteMapBytes())
	}
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if err := jobs.Migrate(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// redisLog passes the Redis client's own messages (it prints plain text to
// stderr by default) into the service's JSON log.
type redisLog struct{ log *slog.Logger }

func (r redisLog) Printf(ctx context.Context, format string, v ...any) {
	r.log.WarnContext(ctx, fmt.Sprintf(format, v...), "component", "redis")
}

// redisCooldown is how long the rate limiter leaves Redis alone after it
// failed, limiting in this process meanwhile.
const redisCooldown = 10 * time.Second

// New builds the service on an open, migrated store.
func New(ctx context.Context, cfg config.Config, db *store.DB, opts Options) (*App, error) {
	a := &App{Config: cfg, DB: db, Clock: opts.Clock, Log: opts.Logger}
	if a.Log == nil {
		a.Log = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	if a.Clock == nil {
		a.Clock = &market.OffsetClock{}
	}
	if err := cfg.EnsureJWTSecret(); err != nil {
		return nil, fmt.Errorf("jwt secret: %w", err)
	}
	a.Config = cfg

	realTime := opts.RealTime
	if realTime == nil {
		realTime = market.SystemClock{}
	}
	var limiter ratelimit.Limiter = ratelimit.NewMemory(realTime.Now)
	requests := limiter // the route limits' counter (ratelimit.Leased with Redis)
	cacheCheck := func(context.Context) error { return nil }
	if cfg.RedisURL != "" {
		ropts, err := redis.ParseURL(cfg.RedisURL)
		if err != nil {
			return nil, fmt.Errorf("MARKETPLACE_REDIS_URL: %w", err)
		}
		// A dead Redis must cost a request little: no retries, short
		// timeouts, and the limiter falls back to this process's own
		// counts for a while (ratelimit.Fallback).
		ropts.MaxRetries = -1
		ropts.DialTimeout, ropts.ReadTimeout, ropts.WriteTimeout = time.Second, 500*time.Millisecond, 500*time.Millisecond
		redis.SetLogger(redisLog{a.Log})
		a.redis = redis.NewClient(ropts)
		shared := ratelimit.NewRedis(a.redis, "marketplace:", realTime.Now)
		requests = ratelimit.NewFallback(ratelimit.ForRequests(shared), limiter, redisCooldown, a.Log)
		limiter = ratelimit.NewFallback(shared, limiter, redisCooldown, a.Log)
		cacheCheck = func(ctx context.Context) error { return a.redis.Ping(ctx).Err() }
	}

	if opts.Limiter != nil {
		limiter, requests = opts.Limiter, ratelimit.ForRequests(opts.Limiter)
	}
	// The graph is built bottom up, each service whole when constructed. The
	// job queue comes first: the services that enqueue jobs take it, and its
	// workers, which call the services, are registered last (jobs.New).
	q, err := jobs.New(db, a.Log)
	if err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}
	a.Queue = q
	// Mail is queued in the transaction of the event that causes it, before
	// the webhooks' sink runs (store.OnEvent keeps the order of setting).
	if a.Notify, err = newNotify(cfg, db, a.Clock, q); err != nil {
		return nil, err
	}
	a.Settings = settings.NewService(store.Settings(db), a.Clock)
	objects, err := newObjects(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// Photos and avatars share the bounds on uploads held in memory.
	intake := photos.NewIntake()
	ph, err := newPhotos(cfg, db, a.Clock, objects, intake)
	if err != nil {
		return nil, err
	}
	a.Photos = ph
	if a.Avatars, err = newAvatars(cfg, db, a.Clock, realTime, objects, intake); err != nil {
		return nil, err
	}
	a.Accounts = accounts.NewService(store.Accounts(db), a.Clock, accounts.NewTokens(cfg.JWTSecret),
		ratelimit.NewScaled(limiter, cfg.LimitScale()), a.Avatars)
	var google accounts.OpenIDProvider // nil: Google sign-in answers FEATURE_DISABLED
	if cfg.GoogleSignIn() {
		google = accounts.NewOIDC(accounts.OIDCConfig{Issuer: cfg.GoogleIssuer, ClientID: cfg.GoogleClientID,
			ClientSecret: cfg.GoogleClientSecret, RedirectURL: cfg.PublicURL + apiv1.Prefix + "/auth/google/callback"})
	}
	googleSignIn := accounts.NewGoogleSignIn(a.Accounts, google, realTime.Now, a.Log)
	a.Agents = agents.NewService(store.Agents(db), a.Clock, agents.Options{Live: cfg.Mode == config.Live,
		Changes: audit.Notes{}, Mailer: notify.AgentsMailer{S: a.Notify}})
	proc, gateway, err := newPayments(cfg, db, a.Clock)
	if err != nil {
		return nil, err
	}
	// The sandbox processor is also the PSP of ACP's delegate_payment.
	vault, _ := proc.(*payments.Sandbox)
	if opts.Gateway != nil {
		gateway = opts.Gateway
	}
	a.Payments = payments.NewService(store.Payments(db), a.Clock, proc, gateway, notify.PaymentsMailer{S: a.Notify})
	a.ChatLinks = accounts.NewChatLinks(store.Accounts(db), a.Clock, realTime, ratelimit.NewScaled(limiter, cfg.LimitScale()),
		cfg.DiscordBotSecret)
	gen := opts.Generator
	if gen == nil {
		gen = newGenerator(cfg, db, a.Log)
	}
	a.Shipping = shipping.NewService(store.Shipping(db), a.Clock, []byte(cfg.JWTSecret))
	// The offers' rules that other areas run in their own transactions
	// (a listing's change, a purchase of an offer) need no service.
	rules := offerRules{clock: a.Clock}
	a.Listings = listings.NewService(store.Listings(db), a.Clock, listings.Options{
		Generator: gen, Settings: listingSettings{a.Settings}, Changes: audit.Notes{}, Photos: a.Photos,
		Budget: opts.GenerationBudget, Packages: sellerPackages{a.Shipping}, Offers: rules.ListingChanged, Scheduler: q})
	if err := a.Listings.SeedCategories(ctx); err != nil {
		return nil, fmt.Errorf("seed categories: %w", err)
	}
	a.Orders = orders.NewService(store.Orders(db), a.Clock, orders.Options{
		Settings: orderSettings{a.Settings}, Changes: audit.Notes{}, Payments: a.Payments, Gateway: gateway,
		Rates: shippingRates{a.Shipping}, Offers: rules, Labels: &labelMaker{shipping: a.Shipping, objects: objects},
		Taxonomy: a.Listings, Tracking: checkTracking, PublicURL: cfg.PublicURL, BeforeSettle: opts.BeforeSettle,
		BeforeCharge: opts.BeforeCharge, OnPaid: autoLabels{shipping: a.Shipping, queue: q}.OnPaid, Log: a.Log})
	// Buying an accepted offer goes through the one purchase path.
	purchases := &offerPurchases{accounts: a.Accounts, agents: a.Agents, orders: a.Orders}
	a.Offers = offers.NewService(store.Offers(db), a.Clock, offers.Options{
		Settings: offerSettings{a.Settings}, Purchaser: purchases, Fees: a.Orders, Taxonomy: a.Listings, Log: a.Log})

	a.Messages = messaging.NewService(store.Messaging(db), a.Clock)
	// Feed readers waiting on a user's feed wake when an event for the user
	// commits here, or when the feed's poller sees one of another replica.
	// Their open streams and long polls are capped per key and per user,
	// across replicas when Redis is configured.
	broker := events.NewBroker()
	db.OnCommit("feed", broker.Notify)
	var feedSlots ratelimit.Slots = ratelimit.NewMemorySlots()
	if a.redis != nil {
		feedSlots = ratelimit.NewSlotsFallback(ratelimit.NewRedisSlots(a.redis, "marketplace:slots:", nil), feedSlots, redisCooldown, a.Log)
	}
	a.Feed = events.NewFeedService(db, a.Clock, events.FeedOptions{Broker: broker, Slots: feedSlots,
		Caps: events.DefaultFeedCaps.Scale(cfg.LimitScale()), Log: a.Log})

	// The ACP binding (made below, with the surfaces) writes the order
	// webhooks of connected platforms.
	var acpBinding *acp.Binding
	a.Webhooks = webhooks.NewService(store.Webhooks(db), a.Clock, webhooks.Options{Live: cfg.Mode == config.Live,
		AllowPrivate: cfg.WebhookPrivateAllowed(), RetryDelays: cfg.WebhookRetryDelays, Log: a.Log, Scheduler: q,
		PlatformBody: func(ctx context.Context, e *events.Event) ([]byte, error) { return acpBinding.OrderEvent(ctx, e) }})
	db.OnEvent("webhooks", func(ctx context.Context, tx *store.Tx, e *events.Event) error { return a.Webhooks.Sink(ctx, tx, e) })
	a.Checkouts = checkouts.NewService(store.Checkouts(db), store.Platforms(db), a.Orders, a.Listings, a.Shipping, a.Clock,
		checkouts.Options{Guests: a.Accounts, CheckURL: a.Webhooks.Guard().CheckURL, Changes: audit.Notes{},
			DisableEndpoint: a.Webhooks.DisablePlatform})
	// A connected platform hears of its orders (CONTRACT.md section 18).
	db.OnEvent("acp", func(ctx context.Context, tx *store.Tx, e *events.Event) error {
		p, err := a.Checkouts.PlatformOf(ctx, tx, e)
		if err != nil || p == nil {
			return err
		}
		return a.Webhooks.SinkTo(ctx, tx, p.EndpointID, e)
	})
	db.OnAnyEvent("audit", auditMoneyMoves)

	if err := q.Work(jobs.Services{Agents: a.Agents, Listings: a.Listings, Orders: a.Orders, Offers: a.Offers, Idempotency: db,
		Mail: a.Notify, Webhooks: a.Webhooks}); err != nil {
		return nil, fmt.Errorf("job queue: %w", err)
	}

	docA, err := openapi.JSON(openapi.A)
	if err != nil {
		return nil, err
	}
	docB, err := openapi.JSON(openapi.B)
	if err != nil {
		return nil, err
	}
	mx := httpapi.NewMetrics()
	a.metrics = mx.Handler()
	auditor := auditWriter{db: db}
	sandboxClock, err := clockAdvancer(cfg.Mode, a.Clock, db)
	if err != nil {
		return nil, err
	}
	var advancer agentv1.SandboxClock // nil in live mode: no time-advance route
	if sandboxClock != nil {
		if err := sandboxClock.Load(ctx); err != nil {
			return nil, fmt.Errorf("sandbox clock: %w", err)
		}
		a.sandboxClock, advancer = sandboxClock, sandboxClock
	}
	// The services every surface shares, built once; each surface holds
	// them with its casing.
	shared := &api.Services{Accounts: a.Accounts, ChatLinks: a.ChatLinks, Agents: a.Agents, Payments: a.Payments,
		Listings: a.Listings, Photos: a.Photos, Shipping: a.Shipping, Orders: a.Orders, Messages: a.Messages,
		Offers: a.Offers, Notify: a.Notify, Webhooks: a.Webhooks, Feed: a.Feed, Checkouts: a.Checkouts, PublicURL: cfg.PublicURL}
	// ACP's checkout sessions: REST under /acp, and the same operations as
	// MCP tools in the catalogue (ACP's MCP binding).
	acpBinding = &acp.Binding{Ops: api.Ops{Services: shared, Casing: api.Snake}, Sandbox: cfg.Mode == config.Sandbox, Vault: vault}
	agentAPI := &agentv1.API{Ops: api.Ops{Services: shared, Casing: api.Snake}, Sandbox: cfg.Mode == config.Sandbox,
		Clock: advancer, SandboxStore: db, Gate: func(ctx context.Context, flag string) error {
			return a.Settings.Require(ctx, settings.Feature(flag))
		}, Extra: acpTools(acpBinding)}
	// The tool catalogue: served over MCP, counted in its classes by the
	// rate limits, listed by the manifest and the agent guides.
	tools := agentAPI.Tools()
	var limits *httpapi.RateLimits
	if !opts.NoRouteLimits {
		limits = a.routeLimits(limiter, requests, tools)
	}
	a.Router = httpapi.NewRouter(httpapi.Services{Accounts: a.Accounts, Agents: a.Agents, Platforms: a.Checkouts}, auditor, a.Log, a.Clock, mx,
		httpapi.RouterOptions{Idempotency: db, Limits: limits})
	publishable := cfg.PublishableKey()
	opsAPI := &ops.Ops{
		Version: version(), Mode: string(cfg.Mode), PublicURL: cfg.PublicURL, PublishableKey: publishable,
		DocA: docA, DocB: docB,
		Checks: []ops.Check{
			{Name: "database", Run: db.Ping},
			{Name: "cache", Run: cacheCheck},
			{Name: "jobs", Run: q.Healthy},
		},
		Settings: a.Settings,
		Tools:    tools,
	}
	opsAPI.Register(a.Router)
	// The admin's services, one value each for the API and the console.
	adminUsers := users.NewUsers(store.AdminUsers(db), a.Clock, users.Options{Agents: a.Agents, Offers: rules.ListingChanged,
		Changes: audit.Notes{}})
	auditLog := audit.NewLog(store.Audit(db))
	webConsole := &console.Console{Ops: api.Ops{Services: shared, Casing: api.Camel}, Secure: cfg.Mode == config.Live,
		Secret: cfg.JWTSecret, Log: a.Log, Google: googleSignIn,
		Admin: console.AdminOps{Users: adminUsers, Audit: auditLog, Settings: a.Settings, Clock: a.Clock}}
	webConsole.Register(a.Router)
	opsAPI.Home = webConsole.Home
	(&apiv1.API{Ops: api.Ops{Services: shared, Casing: api.Camel}, Google: googleSignIn, GoogleSession: webConsole.GoogleSession, Avatars: a.Avatars,
		Activity: activity.NewService(db.Read(), a.Clock), Users: adminUsers, Audit: auditLog, Settings: a.Settings}).Register(a.Router)
	agentAPI.Register(a.Router)
	acpBinding.Register(a.Router)
	// The same catalogue over MCP (CONTRACT.md section 13): a request
	// without a valid agent key is answered 401 before any MCP message.
	a.MCP = &mcpserver.Server{Tools: tools, Version: version(), Audit: auditor, Clock: a.Clock, Log: a.Log}
	a.Router.In("mcp").Handle("POST", mcpserver.Path, httpapi.Agent, a.MCP.Handler())
	(&web.Checkout{Orders: a.Orders, PublishableKey: publishable}).Register(a.Router)
	(&web.StripeWebhook{Secret: cfg.StripeWebhookSecret, Payments: a.Payments, Events: a.Orders}).Register(a.Router)
	if cfg.Mode == config.Sandbox {
		sb := &web.Sandbox{Payments: a.Payments}
		sb.Register(a.Router)
		sb.RegisterDashboard(a.Router)
	}
	if err := a.Router.Gate(a.Settings.Require, httpapi.FeatureRoutes); err != nil {
		return nil, err
	}

	if cfg.AdminEmail != "" {
		if err := a.Accounts.EnsureAdmin(ctx, cfg.AdminEmail, cfg.AdminPassword); err != nil {
			return nil, fmt.Errorf("admin bootstrap: %w", err)
		}
	}
	return a, nil
}

// newNotify builds the e-mail channel and makes it a sink of every public
// event (store.OnEvent), so mails are queued in the event's transaction.
func newNotify(cfg config.Config, db *store.DB, clock market.Clock, queue notify.Enqueuer) (*notify.Service, error) {
	from := cfg.MailFrom
	if from == "" {
		from = config.DefaultMailFrom(cfg.PublicURL)
	}
	n, err := notify.NewService(store.Notify(db), clock, notify.Options{SMTP: cfg.SMTPURL, From: from, PublicURL: cfg.PublicURL,
		Queue: queue})
	if err != nil {
		return nil, err
	}
	db.OnEvent("mail", func(ctx context.Context, tx *store.Tx, e *events.Event) error { return n.Sink(ctx, tx, e) })
	return n, nil
}

// newGenerator picks the AI step: the OpenAI-compatible endpoint when one
// is configured (falling back to the built-in generator whenever it fails),
// else the built-in generator.
// Both pick among the categories in use, which the listings service hands
// them with each brief (listings.Brief.Taxonomy); the built-in tree is only
// what they start from.
func newGenerator(cfg config.Config, db *store.DB, log *slog.Logger) listings.Generator {
	tax := listings.DefaultTaxonomy()
	builtin := generator.NewBuiltin(tax, store.Listings(db).Read())
	var slugs []string
	for _, c := range tax.All() {
		slugs = append(slugs, c.Slug)
	}
	return generator.NewOpenAI(generator.OpenAIConfig{URL: cfg.AIURL, Model: cfg.AIModel, Key: cfg.AIKey, Logger: log},
		slugs, builtin)
}

// newObjects opens the object store configuration picks: an S3-compatible
// bucket, or a directory under the data dir. Photos and shipping labels
// share it (labels under labels/).
func newObjects(ctx context.Context, cfg config.Config) (photos.Store, error) {
	var objects photos.Store
	var err error
	if cfg.S3() {
		objects, err = photos.DialS3(ctx, photos.S3Options{Endpoint: cfg.S3Endpoint, Bucket: cfg.S3Bucket,
			AccessKey: cfg.S3AccessKey, SecretKey: cfg.S3SecretKey, Insecure: !cfg.S3Secure})
	} else {
		objects, err = photos.NewLocal(cfg.PhotosDir())
	}
	if err != nil {
		return nil, fmt.Errorf("object store: %w", err)
	}
	return objects, nil
}

// newPhotos builds the photo service on the object store.
func newPhotos(cfg config.Config, db *store.DB, clock market.Clock, objects photos.Store, intake *photos.Intake) (*listings.Photos, error) {
	// The signer derives its own key from the JWT secret, so neither kind
	// of token verifies as the other.
	signer, err := photos.NewSigner([]byte(cfg.JWTSecret))
	if err != nil {
		return nil, fmt.Errorf("MARKETPLACE_JWT_SECRET: %w", err)
	}
	return listings.NewPhotos(store.Listings(db), clock, signer, objects, intake, cfg.PublicURL), nil
}

// newAvatars builds the avatar service on the object store and the photos'
// intake, with a signing key of its own.
func newAvatars(cfg config.Config, db *store.DB, clock, realTime market.Clock, objects photos.Store, intake *photos.Intake) (*accounts.Avatars, error) {
	signer, err := photos.NewAvatarSigner([]byte(cfg.JWTSecret))
	if err != nil {
		return nil, fmt.Errorf("MARKETPLACE_JWT_SECRET: %w", err)
	}
	return accounts.NewAvatars(store.Accounts(db), clock, realTime, signer, objects, intake, cfg.PublicURL), nil
}

// shippingRates lets the purchase path verify the shipping service's signed
// rate tokens, and ask whether a listing may be collected.
type shippingRates struct{ s *shipping.Service }

func (r shippingRates) LocalPickup(ctx context.Context, l *listings.Listing) (bool, error) {
	prefs, err := r.s.Prefs(ctx, l.SellerID)
	if err != nil {
		return false, err
	}
	return prefs.Pickup(l), nil
}

func (r shippingRates) VerifyRate(token, listingID, zip, field string, now time.Time) (*orders.ShippingRate, error) {
	rate, err := r.s.VerifyRateAs(field, token, listingID, zip, now)
	if err != nil {
		return nil, err
	}
	return &orders.ShippingRate{Carrier: rate.Carrier, Service: rate.Service, Amount: rate.Amount, EstimatedDays: rate.EstimatedDays}, nil
}

// checkTracking validates a shipment's carrier and tracking number against
// the carrier's format.
func checkTracking(carrier, number string) (string, string, error) {
	var c market.Check
	carrier, number = shipping.CheckTrackingFields(&c, carrier, number)
	return carrier, number, c.Err()
}

// clockAdvancer is the clock the sandbox's time-advance moves. In sandbox
// mode the service clock must be able to advance, and its offset is kept
// in the database; live mode never moves it.
func clockAdvancer(mode config.Mode, c market.Clock, db *store.DB) (*sandbox.Clock, error) {
	if mode != config.Sandbox {
		return nil, nil
	}
	ac, ok := c.(sandbox.Advancer)
	if !ok {
		return nil, fmt.Errorf("sandbox mode needs a clock that can advance, not %T", c)
	}
	return sandbox.NewClock(ac, db), nil
}

// auditWriter writes each audit entry in a grouped transaction: its own, or
// (SQLite) one it shares with the writes committing at the same time.
type auditWriter struct{ db *store.DB }

func (w auditWriter) AppendAudit(ctx context.Context, e *audit.Entry) error {
	return w.db.InTxGrouped(ctx, func(tx *store.Tx) error { return tx.AppendAudit(ctx, e) })
}

// Handler is the service's HTTP handler.
func (a *App) Handler() http.Handler { return listings.OneTreePerRequest(a.Router) }

// MetricsHandler serves the Prometheus metrics, which Serve puts on a
// listener of their own (Config.MetricsAddr), never on the API's.
func (a *App) MetricsHandler() http.Handler { return a.metrics }

// Serve starts the job queue and serves HTTP on ln until ctx ends, then
// drains in-flight requests and background work.
func (a *App) Serve(ctx context.Context, ln net.Listener) error {
	metrics, err := a.metricsServer()
	if err != nil {
		return err
	}
	// The queue gets a context that SIGTERM does not cancel: cancelling it
	// would abort running jobs, while Stop below lets them finish.
	if err := a.Queue.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("start jobs: %w", err)
	}
	srv := &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 2)
	// What net/http refuses before routing is answered in the envelope too.
	go func() { errc <- srv.Serve(httpapi.EnvelopeListener(ln, a.Log)) }()
	if metrics != nil {
		go func() { errc <- metrics.serve() }()
	}
	if a.sandboxClock != nil {
		go a.followSandboxClock(ctx)
	}
	metricsAddr := "off"
	if metrics != nil {
		metricsAddr = metrics.ln.Addr().String()
	}
	a.Log.Info("listening", "addr", ln.Addr().String(), "metrics_addr", metricsAddr, "mode", a.Config.Mode,
		"database", string(a.DB.Dialect()), "version", version())
	select {
	case err = <-errc:
	case <-ctx.Done():
	}
	a.Log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	err = errors.Join(err, srv.Shutdown(shutdownCtx))
	if metrics != nil {
		err = errors.Join(err, metrics.srv.Shutdown(shutdownCtx))
	}
	if qerr := a.Queue.Stop(shutdownCtx); qerr != nil && !errors.Is(qerr, context.Canceled) {
		err = errors.Join(err, qerr)
	}
	return err
}

// metricsListener serves /metrics on the metrics address alone.
type metricsListener struct {
	srv *http.Server
	ln  net.Listener
}

func (m *metricsListener) serve() error {
	if err := m.srv.Serve(m.ln); !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics: %w", err)
	}
	return nil
}

// metricsServer opens the metrics listener, or returns nil when
// Config.MetricsAddr is empty. A taken address stops the start.
func (a *App) metricsServer() (*metricsListener, error) {
	if a.Config.MetricsAddr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", a.Config.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener (MARKETPLACE_METRICS_ADDR): %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.metrics)
	return &metricsListener{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(a.Log.Handler(), slog.LevelWarn)}}, nil
}

// sandboxClockRefresh is how often a replica reads the sandbox clock's
// stored offset, to follow another replica's time-advance.
const sandboxClockRefresh = 5 * time.Second

func (a *App) followSandboxClock(ctx context.Context) {
	t := time.NewTicker(sandboxClockRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := a.sandboxClock.Load(ctx); err != nil && ctx.Err() == nil {
				a.Log.Warn("sandbox clock not refreshed", "err", err.Error())
			}
		}
	}
}

// Close releases the store and the cache client.
func (a *App) Close() error {
	var err error
	if a.redis != nil {
		err = a.redis.Close()
	}
	return errors.Join(err, a.DB.Close())
}

// Package config loads the service's settings from the environment and
// flags (CONTRACT.md section 11). Nothing here is global: Load returns a value
// that main hands to whoever needs it.
package config

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Mode is sandbox (test money, hosted pages served here) or live.
type Mode string

const (
	Sandbox Mode = "sandbox"
	Live    Mode = "live"
)

// Payments names the payment processor: the built-in sandbox processor or
// Stripe.
type Payments string

const (
	PaymentsSandbox Payments = "sandbox"
	PaymentsStripe  Payments = "stripe"
)

// SandboxPublishableKey is what /config/stripe-publishable-key answers when
// the sandbox processor takes the payments.
const SandboxPublishableKey = "pk_test_sandbox"

// DefaultMetricsAddr is where /metrics listens unless told otherwise:
// loopback, apart from the API port, for a local Prometheus agent.
const DefaultMetricsAddr = "127.0.0.1:9464"

// Config is every setting the service reads at start-up.
type Config struct {
	Addr          string
	DataDir       string
	DatabaseURL   string // "" means the SQLite file in DataDir
	RedisURL      string
	Mode          Mode
	PublicURL     string
	AdminEmail    string
	AdminPassword string
	JWTSecret     string
	LogLevel      string
	// MetricsAddr is where /metrics is served, on a listener of its own
	// (never the API port); "" serves no metrics.
	MetricsAddr string

	// Payments picks the processor ("" reads as sandbox). Stripe needs the
	// secret key; StripeAPIBase points the client elsewhere (stripe-mock).
	Payments             Payments
	StripeSecretKey      string
	StripePublishableKey string
	StripeWebhookSecret  string
	StripeAPIBase        string

	// The AI step's OpenAI-compatible endpoint; without a URL and model the
	// built-in generator writes listings alone.
	AIURL   string
	AIModel string
	AIKey   string

	// Photos go to an S3-compatible bucket when S3Endpoint and S3Bucket are
	// set, else to a directory under DataDir (PhotosDir).
	S3Endpoint  string // host[:port], no scheme
	S3Bucket    string
	S3AccessKey string
	S3SecretKey string
	S3Secure    bool // HTTPS to the endpoint (default true)

	// DiscordBotSecret is what the marketplace's chat bot sends as its
	// bearer token to get chat-link codes; "" switches its route off.
	DiscordBotSecret string

	// SMTPURL is the server e-mail goes out through
	// (smtp://user:pass@host:port); "" keeps mails in the outbox only.
	// MailFrom is their sender (default no-reply@ the public URL's host).
	SMTPURL  string
	MailFrom string
	// WebhookAllowPrivate lets webhook URLs reach loopback and private
	// addresses; nil means the mode's default (sandbox yes, live no).
	WebhookAllowPrivate *bool
	// WebhookRetryDelays replaces the contract's retry schedule (tests).
	WebhookRetryDelays []time.Duration
	// RateLimitScale multiplies every rate limit, login throttles included
	// (MARKETPLACE_RATE_LIMIT_SCALE); 0 switches them all off (refused in
	// live mode). nil means 1.
	RateLimitScale *float64
	// Google sign-in (OpenID Connect, CONTRACT.md section 17): on when
	// GoogleClientID is set. GoogleIssuer's discovery document names the
	// endpoints and keys (a local provider in tests and demos).
	GoogleIssuer       string
	GoogleClientID     string
	GoogleClientSecret string
	// SQLiteMapMB is how much of the SQLite database each connection reads
	// through a memory map (MARKETPLACE_SQLITE_MMAP_MB); 0 reads with
	// read calls only. nil means DefaultSQLiteMapMB.
	SQLiteMapMB *int
}

// MinDiscordBotSecretLen is the shortest chat bot secret accepted.
const MinDiscordBotSecretLen = 16

// DefaultGoogleIssuer is Google's OpenID issuer, whose discovery document
// is https://accounts.google.com/.well-known/openid-configuration.
const DefaultGoogleIssuer = "https://accounts.google.com"

// GoogleSignIn reports whether Google sign-in is configured.
func (c Config) GoogleSignIn() bool { return c.GoogleClientID != "" }

// DefaultSQLiteMapMB is the SQLite memory map's size unless configured.
const DefaultSQLiteMapMB = 1024

// SQLiteMapBytes is the SQLite memory map's size in force, in bytes.
func (c Config) SQLiteMapBytes() int64 {
	if c.SQLiteMapMB == nil {
		return DefaultSQLiteMapMB << 20
	}
	return int64(*c.SQLiteMapMB) << 20
}

// LimitScale is the rate-limit multiplier in force.
func (c Config) LimitScale() float64 {
	if c.RateLimitScale == nil {
		return 1
	}
	return *c.RateLimitScale
}

// WebhookPrivateAllowed reports whether webhooks may reach private
// addresses.
func (c Config) WebhookPrivateAllowed() bool {
	if c.WebhookAllowPrivate != nil {
		return *c.WebhookAllowPrivate
	}
	return c.Mode != Live
}

// PhotosDir is where the local photo store keeps its files.
func (c Config) PhotosDir() string { return filepath.Join(c.DataDir, "photos") }

// S3 reports whether photos go to an S3-compatible bucket.
func (c Config) S3() bool { return c.S3Endpoint != "" && c.S3Bucket != "" }

// SQLitePath is the database file used when DatabaseURL is empty.
func (c Config) SQLitePath() string { return filepath.Join(c.DataDir, "marketplace.db") }

// Postgres reports whether DatabaseURL selects PostgreSQL.
func (c Config) Postgres() bool {
	return strings.HasPrefix(c.DatabaseURL, "postgres://") || strings.HasPrefix(c.DatabaseURL, "postgresql://")
}

// Lookup reads one environment variable and says whether it is set at all
// (os.LookupEnv): some settings tell "set to empty" from "not set".
type Lookup func(string) (string, bool)

// Load reads the environment through lookup, then lets flags in args
// override it.
func Load(lookup Lookup, args []string, stderr io.Writer) (Config, error) {
	getenv := func(k string) string {
		v, _ := lookup(k)
		return v
	}
	env := func(k, def string) string {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return v
		}
		return def
	}
	c := Config{
		Addr:          env("MARKETPLACE_ADDR", "127.0.0.1:8080"),
		DataDir:       env("MARKETPLACE_DATA_DIR", "./data"),
		DatabaseURL:   env("MARKETPLACE_DATABASE_URL", ""),
		RedisURL:      env("MARKETPLACE_REDIS_URL", ""),
		Mode:          Mode(env("MARKETPLACE_MODE", string(Sandbox))),
		PublicURL:     env("MARKETPLACE_PUBLIC_URL", ""),
		AdminEmail:    env("MARKETPLACE_ADMIN_EMAIL", ""),
		AdminPassword: getenv("MARKETPLACE_ADMIN_PASSWORD"),
		JWTSecret:     getenv("MARKETPLACE_JWT_SECRET"),
		LogLevel:      env("MARKETPLACE_LOG_LEVEL", "info"),
		MetricsAddr:   DefaultMetricsAddr,

		Payments:        Payments(strings.ToLower(env("MARKETPLACE_PAYMENTS", string(PaymentsSandbox)))),
		StripeSecretKey: strings.TrimSpace(getenv("STRIPE_SECRET_KEY")),
		// The MARKETPLACE_ spelling is the one earlier releases read.
		StripePublishableKey: env("STRIPE_PUBLISHABLE_KEY", env("MARKETPLACE_STRIPE_PUBLISHABLE_KEY", "")),
		StripeWebhookSecret:  strings.TrimSpace(getenv("STRIPE_WEBHOOK_SECRET")),
		StripeAPIBase:        strings.TrimRight(env("STRIPE_API_BASE", ""), "/"),

		AIURL:   env("MARKETPLACE_AI_URL", ""),
		AIModel: env("MARKETPLACE_AI_MODEL", ""),
		AIKey:   getenv("MARKETPLACE_AI_KEY"),

		S3Endpoint:  env("MARKETPLACE_S3_ENDPOINT", ""),
		S3Bucket:    env("MARKETPLACE_S3_BUCKET", ""),
		S3AccessKey: env("MARKETPLACE_S3_ACCESS_KEY", ""),
		S3SecretKey: getenv("MARKETPLACE_S3_SECRET_KEY"),

		DiscordBotSecret: strings.TrimSpace(getenv("MARKETPLACE_DISCORD_BOT_SECRET")),

		SMTPURL:  env("MARKETPLACE_SMTP_URL", ""),
		MailFrom: env("MARKETPLACE_MAIL_FROM", ""),

		GoogleIssuer:       env("MARKETPLACE_GOOGLE_ISSUER", DefaultGoogleIssuer), // exactly as the discovery document spells it
		GoogleClientID:     env("MARKETPLACE_GOOGLE_CLIENT_ID", ""),
		GoogleClientSecret: strings.TrimSpace(getenv("MARKETPLACE_GOOGLE_CLIENT_SECRET")),
	}
	if v, set := lookup("MARKETPLACE_METRICS_ADDR"); set {
		c.MetricsAddr = strings.TrimSpace(v) // empty turns the metrics listener off
	}
	switch secure := strings.ToLower(env("MARKETPLACE_S3_SECURE", "true")); secure {
	case "true":
		c.S3Secure = true
	case "false":
	default:
		return c, fmt.Errorf("MARKETPLACE_S3_SECURE must be true or false, not %q", secure)
	}
	switch v := strings.ToLower(env("MARKETPLACE_WEBHOOK_ALLOW_PRIVATE", "")); v {
	case "":
	case "true", "false":
		allow := v == "true"
		c.WebhookAllowPrivate = &allow
	default:
		return c, fmt.Errorf("MARKETPLACE_WEBHOOK_ALLOW_PRIVATE must be true or false, not %q", v)
	}
	if v := env("MARKETPLACE_WEBHOOK_RETRY_SCHEDULE", ""); v != "" {
		for _, part := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(part))
			if err != nil || d <= 0 {
				return c, fmt.Errorf("MARKETPLACE_WEBHOOK_RETRY_SCHEDULE is a comma list of positive durations (5s,5m,...), not %q", v)
			}
			c.WebhookRetryDelays = append(c.WebhookRetryDelays, d)
		}
	}
	scale := env("MARKETPLACE_RATE_LIMIT_SCALE", "1")
	mapMB := env("MARKETPLACE_SQLITE_MMAP_MB", strconv.Itoa(DefaultSQLiteMapMB))
	fs := flag.NewFlagSet("marketplace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.Addr, "addr", c.Addr, "listen address (MARKETPLACE_ADDR)")
	fs.StringVar(&c.DataDir, "data-dir", c.DataDir, "SQLite file, photos, generated secrets (MARKETPLACE_DATA_DIR)")
	fs.StringVar(&c.DatabaseURL, "database-url", c.DatabaseURL, "a postgres:// URL selects PostgreSQL (MARKETPLACE_DATABASE_URL)")
	fs.StringVar(&c.RedisURL, "redis-url", c.RedisURL, "Redis for shared rate limits (MARKETPLACE_REDIS_URL)")
	mode := fs.String("mode", string(c.Mode), "sandbox or live (MARKETPLACE_MODE)")
	processor := fs.String("payments", string(c.Payments), "payment processor: sandbox or stripe (MARKETPLACE_PAYMENTS)")
	fs.StringVar(&c.PublicURL, "public-url", c.PublicURL, "base of absolute links (MARKETPLACE_PUBLIC_URL)")
	fs.StringVar(&c.LogLevel, "log-level", c.LogLevel, "debug, info, warn or error (MARKETPLACE_LOG_LEVEL)")
	fs.StringVar(&c.MetricsAddr, "metrics-addr", c.MetricsAddr, "Prometheus /metrics listener; empty turns it off (MARKETPLACE_METRICS_ADDR)")
	fs.StringVar(&scale, "rate-limit-scale", scale, "multiplies every rate limit; 0 switches them off, not in live mode (MARKETPLACE_RATE_LIMIT_SCALE)")
	fs.StringVar(&mapMB, "sqlite-mmap-mb", mapMB, "MiB of the SQLite file each connection reads through a memory map; 0: none (MARKETPLACE_SQLITE_MMAP_MB)")
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(scale), 64)
	if err != nil || f < 0 || f > 1000 || math.IsNaN(f) {
		return c, fmt.Errorf("MARKETPLACE_RATE_LIMIT_SCALE must be a number from 0 to 1000, not %q", scale)
	}
	c.RateLimitScale = &f
	mb, err := strconv.Atoi(strings.TrimSpace(mapMB))
	if err != nil || mb < 0 || mb > 1<<20 {
		return c, fmt.Errorf("MARKETPLACE_SQLITE_MMAP_MB must be a whole number of MiB from 0 to 1048576, not %q", mapMB)
	}
	c.SQLiteMapMB = &mb
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	c.Mode = Mode(*mode)
	if c.Mode != Sandbox && c.Mode != Live {
		return c, fmt.Errorf("MARKETPLACE_MODE must be sandbox or live, not %q", c.Mode)
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Addr
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if err := c.checkMail(); err != nil {
		return c, err
	}
	if c.DatabaseURL != "" && !c.Postgres() {
		return c, fmt.Errorf("MARKETPLACE_DATABASE_URL must be a postgres:// URL (leave it empty for SQLite)")
	}
	if c.AdminEmail != "" && c.AdminPassword == "" {
		return c, errors.New("MARKETPLACE_ADMIN_EMAIL is set but MARKETPLACE_ADMIN_PASSWORD is not")
	}
	if (c.AIURL == "") != (c.AIModel == "") {
		return c, errors.New("MARKETPLACE_AI_URL and MARKETPLACE_AI_MODEL go together")
	}
	if (c.S3Endpoint == "") != (c.S3Bucket == "") {
		return c, errors.New("MARKETPLACE_S3_ENDPOINT and MARKETPLACE_S3_BUCKET go together")
	}
	if u, err := url.Parse(c.GoogleIssuer); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return c, fmt.Errorf("MARKETPLACE_GOOGLE_ISSUER must be an http(s) URL, not %q", c.GoogleIssuer)
	}
	if strings.Contains(c.S3Endpoint, "://") {
		return c, errors.New("MARKETPLACE_S3_ENDPOINT is host[:port] without a scheme (MARKETPLACE_S3_SECURE picks HTTPS or HTTP)")
	}
	if c.Mode == Live && f == 0 {
		return c, errors.New("MARKETPLACE_RATE_LIMIT_SCALE=0 switches rate limits off, which live mode refuses")
	}
	if c.Mode == Live && c.JWTSecret == "" {
		return c, errors.New("MARKETPLACE_JWT_SECRET is required in live mode")
	}
	// Whoever holds the bot secret can vouch for any chat account, so a
	// short one is refused rather than left to be guessed.
	if c.DiscordBotSecret != "" && len(c.DiscordBotSecret) < MinDiscordBotSecretLen {
		return c, fmt.Errorf("MARKETPLACE_DISCORD_BOT_SECRET must be at least %d characters", MinDiscordBotSecretLen)
	}
	if err := c.checkPayments(Payments(strings.ToLower(*processor))); err != nil {
		return c, err
	}
	return c, nil
}

// checkPayments settles the processor. Live money never goes through the
// sandbox processor, and live Stripe needs its webhook secret (the
// account.updated webhook is what verifies sellers there) and its
// publishable key (the checkout page).
func (c *Config) checkPayments(p Payments) error {
	c.Payments = p
	switch {
	case c.Payments != PaymentsSandbox && c.Payments != PaymentsStripe:
		return fmt.Errorf("MARKETPLACE_PAYMENTS must be sandbox or stripe, not %q", c.Payments)
	case c.Mode == Live && c.Payments == PaymentsSandbox:
		return errors.New("live mode takes real money: set MARKETPLACE_PAYMENTS=stripe (the sandbox processor is refused)")
	case c.Payments == PaymentsStripe && c.StripeSecretKey == "":
		return errors.New("MARKETPLACE_PAYMENTS=stripe needs STRIPE_SECRET_KEY")
	case c.Payments == PaymentsStripe && c.Mode == Live && c.StripeWebhookSecret == "":
		return errors.New("live mode with Stripe needs STRIPE_WEBHOOK_SECRET (the account.updated webhook verifies sellers)")
	case c.Payments == PaymentsStripe && c.Mode == Live && c.StripePublishableKey == "":
		return errors.New("live mode with Stripe needs STRIPE_PUBLISHABLE_KEY (the checkout page's Stripe Elements)")
	}
	if c.StripeAPIBase != "" {
		u, err := url.Parse(c.StripeAPIBase)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("STRIPE_API_BASE must be an http(s) URL, not %q", c.StripeAPIBase)
		}
	}
	return nil
}

// checkMail checks the SMTP URL and the sender, defaulting the sender to
// no-reply at the public URL's host.
func (c *Config) checkMail() error {
	if c.SMTPURL != "" {
		u, err := url.Parse(c.SMTPURL)
		if err != nil || u.Scheme != "smtp" || u.Hostname() == "" {
			return errors.New("MARKETPLACE_SMTP_URL must be smtp://[user:pass@]host[:port]")
		}
	}
	if c.MailFrom == "" {
		c.MailFrom = DefaultMailFrom(c.PublicURL)
		return nil
	}
	if _, err := mail.ParseAddress(c.MailFrom); err != nil {
		return fmt.Errorf("MARKETPLACE_MAIL_FROM must be an e-mail address (optionally with a name), not %q", c.MailFrom)
	}
	return nil
}

// DefaultMailFrom is the sender used when MARKETPLACE_MAIL_FROM is not set.
func DefaultMailFrom(publicURL string) string {
	host := "localhost"
	if u, err := url.Parse(publicURL); err == nil && u.Hostname() != "" {
		host = u.Hostname()
	}
	return "Marketplace <no-reply@" + host + ">"
}

// Stripe reports whether Stripe is the payment processor.
func (c Config) Stripe() bool { return c.Payments == PaymentsStripe }

// PublishableKey is the key the checkout front end gets: Stripe's when
// Stripe takes the payments (and in live mode), else the sandbox's.
func (c Config) PublishableKey() string {
	if c.Stripe() || c.Mode == Live {
		return c.StripePublishableKey
	}
	return SandboxPublishableKey
}

// EnsureJWTSecret fills JWTSecret in sandbox mode from a file in the data
// dir, generating it on first use so tokens survive restarts.
func (c *Config) EnsureJWTSecret() error {
	if c.JWTSecret != "" {
		return nil
	}
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(c.DataDir, "jwt-secret")
	if b, err := os.ReadFile(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		c.JWTSecret = strings.TrimSpace(string(b))
		return nil
	}
	buf := make([]byte, 32)
	if _, err := rand.Read(buf); err != nil {
		return err
	}
	c.JWTSecret = hex.EncodeToString(buf)
	return os.WriteFile(path, []byte(c.JWTSecret+"\n"), 0o600)
}

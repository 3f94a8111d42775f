package config

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(m map[string]string) Lookup {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := Load(envOf(nil), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.DataDir != "./data" || c.Mode != Sandbox || c.PublicURL != "http://127.0.0.1:8080" ||
		c.DatabaseURL != "" || c.Postgres() || c.SQLitePath() != filepath.Join("data", "marketplace.db") {
		t.Fatalf("defaults: %+v", c)
	}
	if c.S3() || c.PhotosDir() != filepath.Join("data", "photos") || !c.S3Secure {
		t.Fatalf("photo store defaults: S3 %v, dir %q, secure %v", c.S3(), c.PhotosDir(), c.S3Secure)
	}
	if c.Payments != PaymentsSandbox || c.Stripe() || c.PublishableKey() != SandboxPublishableKey {
		t.Fatalf("payments defaults: %q, publishable %q", c.Payments, c.PublishableKey())
	}
}

func TestStripePayments(t *testing.T) {
	c, err := Load(envOf(map[string]string{
		"MARKETPLACE_PAYMENTS": "Stripe", "STRIPE_SECRET_KEY": "sk_test_1", "STRIPE_PUBLISHABLE_KEY": "pk_test_1",
		"STRIPE_WEBHOOK_SECRET": "whsec_1", "STRIPE_API_BASE": "http://127.0.0.1:12111/",
	}), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Stripe() || c.StripeSecretKey != "sk_test_1" || c.StripeWebhookSecret != "whsec_1" ||
		c.StripeAPIBase != "http://127.0.0.1:12111" || c.PublishableKey() != "pk_test_1" {
		t.Fatalf("stripe settings: %+v", c)
	}
	// Live mode with Stripe and its webhook secret starts.
	live := map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s", "MARKETPLACE_PAYMENTS": "stripe",
		"STRIPE_SECRET_KEY": "sk_live_1", "STRIPE_WEBHOOK_SECRET": "whsec_1", "MARKETPLACE_STRIPE_PUBLISHABLE_KEY": "pk_live_1"}
	c, err = Load(envOf(live), nil, io.Discard)
	if err != nil || c.Mode != Live || c.PublishableKey() != "pk_live_1" {
		t.Fatalf("live stripe: %+v %v", c, err)
	}
	// The flag mirrors the variable.
	c, err = Load(envOf(map[string]string{"STRIPE_SECRET_KEY": "sk_test_1"}), []string{"-payments", "stripe"}, io.Discard)
	if err != nil || !c.Stripe() {
		t.Fatalf("-payments stripe: %+v %v", c, err)
	}
}

func TestS3PhotoStore(t *testing.T) {
	base := map[string]string{"MARKETPLACE_S3_ENDPOINT": "minio.local:9000", "MARKETPLACE_S3_BUCKET": "photos",
		"MARKETPLACE_S3_ACCESS_KEY": "ak", "MARKETPLACE_S3_SECRET_KEY": "sk"}
	c, err := Load(envOf(base), nil, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !c.S3() || c.S3Endpoint != "minio.local:9000" || c.S3Bucket != "photos" || c.S3AccessKey != "ak" ||
		c.S3SecretKey != "sk" || !c.S3Secure {
		t.Fatalf("s3: %+v", c)
	}
	for v, want := range map[string]bool{"false": false, "FALSE": false, "true": true} {
		env := map[string]string{"MARKETPLACE_S3_SECURE": v}
		for k, x := range base {
			env[k] = x
		}
		c, err := Load(envOf(env), nil, io.Discard)
		if err != nil || c.S3Secure != want {
			t.Errorf("MARKETPLACE_S3_SECURE=%s: secure %v, err %v; want %v", v, c.S3Secure, err, want)
		}
	}
}

func TestEnvAndFlags(t *testing.T) {
	env := envOf(map[string]string{
		"MARKETPLACE_ADDR": "0.0.0.0:9000", "MARKETPLACE_DATABASE_URL": "postgres://u@h/db",
		"MARKETPLACE_PUBLIC_URL": "https://market.example/", "MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s",
		"MARKETPLACE_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk_live_1", "STRIPE_WEBHOOK_SECRET": "whsec_1",
		"STRIPE_PUBLISHABLE_KEY": "pk_live_1",
	})
	c, err := Load(env, []string{"-addr", "127.0.0.1:7000"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:7000" || !c.Postgres() || c.PublicURL != "https://market.example" || c.Mode != Live {
		t.Fatalf("env and flags: %+v", c)
	}
}

func TestRefusals(t *testing.T) {
	cases := map[string]struct {
		env  map[string]string
		args []string
		want string
	}{
		"bad mode":            {map[string]string{"MARKETPLACE_MODE": "prod"}, nil, "sandbox or live"},
		"mysql url":           {map[string]string{"MARKETPLACE_DATABASE_URL": "mysql://x"}, nil, "postgres://"},
		"admin without pass":  {map[string]string{"MARKETPLACE_ADMIN_EMAIL": "a@b.c"}, nil, "ADMIN_PASSWORD"},
		"live without secret": {map[string]string{"MARKETPLACE_MODE": "live"}, nil, "JWT_SECRET"},
		"unknown flag":        {nil, []string{"-nope"}, "not defined"},
		"s3 without bucket":   {map[string]string{"MARKETPLACE_S3_ENDPOINT": "s3.example"}, nil, "go together"},
		"s3 without endpoint": {map[string]string{"MARKETPLACE_S3_BUCKET": "b"}, nil, "go together"},
		"s3 with scheme": {map[string]string{"MARKETPLACE_S3_ENDPOINT": "https://s3.example",
			"MARKETPLACE_S3_BUCKET": "b"}, nil, "without a scheme"},
		"s3 secure maybe":  {map[string]string{"MARKETPLACE_S3_SECURE": "maybe"}, nil, "true or false"},
		"stray argument":   {nil, []string{"extra"}, "unexpected"},
		"unknown payments": {map[string]string{"MARKETPLACE_PAYMENTS": "paypal"}, nil, "sandbox or stripe"},
		"live sandbox payments": {map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s"}, nil,
			"sandbox processor is refused"},
		"live sandbox payments by flag": {map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s",
			"MARKETPLACE_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk", "STRIPE_WEBHOOK_SECRET": "whsec"},
			[]string{"-payments", "sandbox"}, "sandbox processor is refused"},
		"stripe without key": {map[string]string{"MARKETPLACE_PAYMENTS": "stripe"}, nil, "STRIPE_SECRET_KEY"},
		"live stripe without webhook secret": {map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s",
			"MARKETPLACE_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk", "STRIPE_PUBLISHABLE_KEY": "pk"}, nil, "STRIPE_WEBHOOK_SECRET"},
		"live stripe without publishable key": {map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "s",
			"MARKETPLACE_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk", "STRIPE_WEBHOOK_SECRET": "whsec"}, nil, "STRIPE_PUBLISHABLE_KEY"},
		"stripe base without scheme": {map[string]string{"MARKETPLACE_PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk",
			"STRIPE_API_BASE": "127.0.0.1:12111"}, nil, "STRIPE_API_BASE"},
	}
	for name, c := range cases {
		if _, err := Load(envOf(c.env), c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want one mentioning %q", name, err, c.want)
		}
	}
}

func TestJWTSecretIsGeneratedOnce(t *testing.T) {
	dir := t.TempDir()
	a := Config{DataDir: dir}
	if err := a.EnsureJWTSecret(); err != nil || len(a.JWTSecret) < 32 {
		t.Fatalf("generate: %q %v", a.JWTSecret, err)
	}
	b := Config{DataDir: dir}
	if err := b.EnsureJWTSecret(); err != nil || b.JWTSecret != a.JWTSecret {
		t.Fatalf("the secret must survive restarts: %q vs %q (%v)", b.JWTSecret, a.JWTSecret, err)
	}
	info, err := os.Stat(filepath.Join(dir, "jwt-secret"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secret file mode: %v %v", info, err)
	}
	given := Config{DataDir: t.TempDir(), JWTSecret: "from-env"}
	if err := given.EnsureJWTSecret(); err != nil || given.JWTSecret != "from-env" {
		t.Fatal("a configured secret must be kept")
	}
}

// Metrics listen on loopback apart from the API unless told otherwise; an
// empty MARKETPLACE_METRICS_ADDR (set, not missing) turns them off.
func TestMetricsAddr(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		args []string
		want string
	}{
		{nil, nil, DefaultMetricsAddr},
		{map[string]string{"MARKETPLACE_METRICS_ADDR": ""}, nil, ""},
		{map[string]string{"MARKETPLACE_METRICS_ADDR": " 0.0.0.0:9100 "}, nil, "0.0.0.0:9100"},
		{nil, []string{"-metrics-addr", ""}, ""},
	} {
		c, err := Load(envOf(tc.env), tc.args, io.Discard)
		if err != nil || c.MetricsAddr != tc.want {
			t.Errorf("env %v args %v: %q, %v; want %q", tc.env, tc.args, c.MetricsAddr, err, tc.want)
		}
	}
}

func TestRateLimitScale(t *testing.T) {
	load := func(env map[string]string, args ...string) (Config, error) {
		return Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, args, io.Discard)
	}
	c, err := load(nil)
	if err != nil || c.LimitScale() != 1 {
		t.Fatalf("default: %v %v, want 1", c.LimitScale(), err)
	}
	if c, err = load(map[string]string{"MARKETPLACE_RATE_LIMIT_SCALE": "2"}); err != nil || c.LimitScale() != 2 {
		t.Fatalf("env 2: %v %v", c.LimitScale(), err)
	}
	if c, err = load(map[string]string{"MARKETPLACE_RATE_LIMIT_SCALE": "2"}, "-rate-limit-scale", "0"); err != nil || c.LimitScale() != 0 {
		t.Fatalf("flag 0 over env: %v %v", c.LimitScale(), err)
	}
	for _, bad := range []string{"-1", "x", "NaN", "1001"} {
		if _, err := load(map[string]string{"MARKETPLACE_RATE_LIMIT_SCALE": bad}); err == nil {
			t.Errorf("scale %q accepted", bad)
		}
	}
	live := map[string]string{"MARKETPLACE_MODE": "live", "MARKETPLACE_JWT_SECRET": "x", "MARKETPLACE_PAYMENTS": "stripe",
		"STRIPE_SECRET_KEY": "sk", "STRIPE_WEBHOOK_SECRET": "wh", "STRIPE_PUBLISHABLE_KEY": "pk", "MARKETPLACE_RATE_LIMIT_SCALE": "0"}
	if _, err := load(live); err == nil || !strings.Contains(err.Error(), "live mode") {
		t.Fatalf("scale 0 in live mode: %v, want refused", err)
	}
	live["MARKETPLACE_RATE_LIMIT_SCALE"] = "0.5"
	if c, err := load(live); err != nil || c.LimitScale() != 0.5 {
		t.Fatalf("live 0.5: %v %v", c.LimitScale(), err)
	}
}

func TestSQLiteMapSize(t *testing.T) {
	load := func(env map[string]string, args ...string) (Config, error) {
		return Load(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, args, io.Discard)
	}
	if got := (Config{}).SQLiteMapBytes(); got != DefaultSQLiteMapMB<<20 {
		t.Fatalf("zero Config: %d", got)
	}
	for _, c := range []struct {
		env  string
		args []string
		want int64
	}{{"", nil, 1 << 30}, {"64", nil, 64 << 20}, {"0", nil, 0}, {"64", []string{"-sqlite-mmap-mb", "8"}, 8 << 20}} {
		env := map[string]string{}
		if c.env != "" {
			env["MARKETPLACE_SQLITE_MMAP_MB"] = c.env
		}
		cfg, err := load(env, c.args...)
		if err != nil || cfg.SQLiteMapBytes() != c.want {
			t.Errorf("env %q args %v: %d %v, want %d", c.env, c.args, cfg.SQLiteMapBytes(), err, c.want)
		}
	}
	for _, bad := range []string{"-1", "x", "1.5", "1048577"} {
		if _, err := load(map[string]string{"MARKETPLACE_SQLITE_MMAP_MB": bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestDiscordBotSecret(t *testing.T) {
	c, err := Load(envOf(map[string]string{"MARKETPLACE_DISCORD_BOT_SECRET": "  bot-secret-0123456789  "}), nil, io.Discard)
	if err != nil || c.DiscordBotSecret != "bot-secret-0123456789" {
		t.Fatalf("bot secret: %q %v", c.DiscordBotSecret, err)
	}
	if c, err := Load(envOf(nil), nil, io.Discard); err != nil || c.DiscordBotSecret != "" {
		t.Fatalf("no bot secret: %q %v", c.DiscordBotSecret, err)
	}
	_, err = Load(envOf(map[string]string{"MARKETPLACE_DISCORD_BOT_SECRET": "short"}), nil, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "MARKETPLACE_DISCORD_BOT_SECRET") {
		t.Fatalf("a short secret: %v", err)
	}
}

func TestGoogleSignIn(t *testing.T) {
	c, err := Load(envOf(nil), nil, io.Discard)
	if err != nil || c.GoogleSignIn() || c.GoogleIssuer != DefaultGoogleIssuer {
		t.Fatalf("defaults: on %v, issuer %q, err %v", c.GoogleSignIn(), c.GoogleIssuer, err)
	}
	c, err = Load(envOf(map[string]string{"MARKETPLACE_GOOGLE_CLIENT_ID": " id.apps ", "MARKETPLACE_GOOGLE_CLIENT_SECRET": "sec",
		"MARKETPLACE_GOOGLE_ISSUER": "http://127.0.0.1:9999/"}), nil, io.Discard)
	if err != nil || !c.GoogleSignIn() || c.GoogleClientID != "id.apps" || c.GoogleClientSecret != "sec" ||
		c.GoogleIssuer != "http://127.0.0.1:9999/" {
		t.Fatalf("set: %+v %v", c, err)
	}
	for _, bad := range []string{"accounts.google.com", "ftp://idp.example", "https://"} {
		_, err := Load(envOf(map[string]string{"MARKETPLACE_GOOGLE_ISSUER": bad}), nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "MARKETPLACE_GOOGLE_ISSUER") {
			t.Errorf("issuer %q: err %v", bad, err)
		}
	}
}

package agentv1_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"marketplace/internal/config"
	"marketplace/internal/testkit"
)

const sbDiscordPath = "/v1/sandbox/discord/code"

var sbCodeRE = regexp.MustCompile(`^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$`)

// The sandbox hands out chat-link codes as the chat bot would, without the
// bot or its secret; a user links with one as with the bot's.
func TestSandboxDiscordCode(t *testing.T) {
	t.Parallel()
	testkit.Run(t, testkit.Options{}, func(t *testing.T, s *testkit.Server) {
		owner := s.Register("sbchat")
		key := s.NewKey(owner, "buy_only")
		body := map[string]any{"discord_user_id": "424242424242424242", "discord_username": "sbchat#0001"}

		for name, auth := range map[string]testkit.Header{"agent key": key.Auth(), "bearer": owner.Auth()} {
			t.Run(name, func(t *testing.T) {
				d := s.Do("POST", sbDiscordPath, body, auth).Want(t, http.StatusOK, "").Data()
				if len(d) != 2 || !sbCodeRE.MatchString(d["code"].(string)) {
					t.Fatalf("code answer %v", d)
				}
				exp, err := time.Parse(time.RFC3339, d["expires_at"].(string))
				if err != nil || !exp.Equal(s.RealTime.Now().Add(15*time.Minute).Truncate(time.Second)) {
					t.Fatalf("expires_at %v (%v), want 15 minutes of real time", d["expires_at"], err)
				}
			})
		}

		code := s.Do("POST", sbDiscordPath, body, key.Auth()).Want(t, http.StatusOK, "").Data()["code"].(string)
		s.Do("POST", "/api/v1/auth/discord/verify", map[string]any{"code": code}, owner.Auth()).Want(t, http.StatusOK, "")
		acct := s.Do("GET", "/v1/account", nil, key.Auth()).Want(t, http.StatusOK, "").Data()
		if l, _ := acct["discord"].(map[string]any); l["discord_user_id"] != "424242424242424242" || l["discord_username"] != "sbchat#0001" {
			t.Fatalf("account discord = %v", acct["discord"])
		}

		// The bot route's camelCase body works too.
		camel := s.Do("POST", sbDiscordPath, map[string]any{"discordUserId": "515151515151515151", "discordUsername": "camel"},
			owner.Auth()).Want(t, http.StatusOK, "").Data()
		if !sbCodeRE.MatchString(camel["code"].(string)) {
			t.Fatalf("camelCase body: %v", camel)
		}

		testkit.WantFields(t, s.Do("POST", sbDiscordPath, map[string]any{}, key.Auth()), "discord_user_id", "discord_username")
		testkit.WantFields(t, s.Do("POST", sbDiscordPath, map[string]any{"discord_user_id": "a b", "discord_username": "x"}, key.Auth()),
			"discord_user_id")
		s.Do("POST", sbDiscordPath, body).Want(t, http.StatusUnauthorized, "UNAUTHORIZED")
	})
}

// In live mode the sandbox route does not exist; the chat bot's route does.
func TestSandboxDiscordCodeLive(t *testing.T) {
	t.Parallel()
	const secret = "live-bot-secret-0123456789"
	testkit.Run(t, testkit.Options{Mode: config.Live, DiscordBotSecret: secret}, func(t *testing.T, s *testkit.Server) {
		u := s.Register("sbchatlive")
		body := map[string]any{"discord_user_id": "434343434343434343", "discord_username": "live"}
		s.Do("POST", sbDiscordPath, body, u.Auth()).Want(t, http.StatusNotFound, "NOT_FOUND")
		s.Do("POST", sbDiscordPath, body).Want(t, http.StatusNotFound, "NOT_FOUND")
		code := s.Do("POST", "/api/v1/integrations/discord/codes", map[string]any{"discordUserId": "434343434343434343",
			"discordUsername": "live"}, testkit.Bearer(secret)).Want(t, http.StatusOK, "").Data()["code"].(string)
		s.Do("POST", "/api/v1/auth/discord/verify", map[string]any{"code": code}, u.Auth()).Want(t, http.StatusOK, "")
	})
}

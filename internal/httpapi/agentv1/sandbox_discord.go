package agentv1

import (
	"net/http"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/httpapi"
)

// sandboxDiscordBody takes the bot route's camelCase spelling too, since
// the route stands in for it ("the same body", CONTRACT.md section 17).
type sandboxDiscordBody struct {
	DiscordUserID   string `json:"discord_user_id" minLength:"1" maxLength:"64" pattern:"^[A-Za-z0-9_.:-]+$" doc:"The chat account's user id. Required (here or as 'discordUserId')."`
	DiscordUsername string `json:"discord_username" minLength:"1" maxLength:"100" doc:"The chat account's name, shown on the link. Required (here or as 'discordUsername')."`
	DiscordUserIDA  string `json:"discordUserId" minLength:"1" maxLength:"64" pattern:"^[A-Za-z0-9_.:-]+$" doc:"The bot route's spelling of 'discord_user_id', used when that is absent or empty."`
	DiscordNameA    string `json:"discordUsername" minLength:"1" maxLength:"100" doc:"The bot route's spelling of 'discord_username', used when that is absent or empty."`
}

type sandboxDiscordCode struct {
	Code      string    `json:"code" pattern:"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$" doc:"Verify it with 'POST /api/v1/auth/discord/verify' as the user to link."`
	ExpiresAt time.Time `json:"expires_at" doc:"15 minutes after issue."`
}

// discordCode is POST /v1/sandbox/discord/code: a chat-link code as the
// chat bot would get it, for testing without a bot (and without its
// secret). Like the bot's route it answers 200.
func (sb *sandboxOps) discordCode(w http.ResponseWriter, r *http.Request) error {
	var b sandboxDiscordBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	acct := accounts.DiscordAccount{UserID: b.DiscordUserID, Username: b.DiscordUsername}
	if acct.UserID == "" {
		acct.UserID = b.DiscordUserIDA
	}
	if acct.Username == "" {
		acct.Username = b.DiscordNameA
	}
	c, err := sb.api.ChatLinks.IssueCode(r.Context(), acct)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, sandboxDiscordCode{Code: c.Code, ExpiresAt: c.ExpiresAt})
}

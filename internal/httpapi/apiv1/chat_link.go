package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
)

// RegisterChatLink adds the chat link's routes (CONTRACT.md section 17):
// the bot's code route, which takes the bot's secret instead of a user's
// credentials, and the user's verify and unlink.
func (a *API) RegisterChatLink(rt *httpapi.Router) {
	rt = rt.In("accounts")
	p := Prefix
	rt.Handle("POST", p+"/integrations/discord/codes", httpapi.Public, a.discordCode)
	rt.Handle("POST", p+"/auth/discord/verify", httpapi.Bearer, a.verifyDiscord)
	rt.Handle("DELETE", p+"/auth/discord", httpapi.Bearer, a.unlinkDiscord)
}

type discordCodeBody struct {
	DiscordUserID   string `json:"discordUserId" minLength:"1" maxLength:"64" pattern:"^[A-Za-z0-9_.:-]+$" required:"true" doc:"The chat account's user id."`
	DiscordUsername string `json:"discordUsername" minLength:"1" maxLength:"100" required:"true" doc:"The chat account's name, shown on the link."`
}

type discordCode struct {
	Code      string    `json:"code" pattern:"^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{8}$" doc:"Give it to the person, once; they enter it while signed in (POST /auth/discord/verify)."`
	ExpiresAt time.Time `json:"expiresAt" doc:"15 minutes after issue."`
}

// discordCode is the chat bot's route: its secret first, so nothing about
// the body is told to a caller without it. Issuing answers 200, as photo
// upload URLs do: the code is no resource the bot addresses later.
func (a *API) discordCode(w http.ResponseWriter, r *http.Request) error {
	secret, _ := httpapi.BearerToken(r)
	if err := a.ChatLinks.AuthenticateBot(secret); err != nil {
		return err
	}
	var b discordCodeBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	c, err := a.ChatLinks.IssueCode(r.Context(), accounts.DiscordAccount{UserID: b.DiscordUserID, Username: b.DiscordUsername})
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, discordCode{Code: c.Code, ExpiresAt: c.ExpiresAt})
}

type verifyDiscordBody struct {
	Code string `json:"code" required:"true" doc:"The 8-character code from the chat bot; case, spaces and hyphens do not matter."`
}

func (a *API) verifyDiscord(w http.ResponseWriter, r *http.Request) error {
	var b verifyDiscordBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	l, err := a.ChatLinks.Verify(r.Context(), p.Actor, b.Code)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, api.ChatLinkOf(l))
}

func (a *API) unlinkDiscord(w http.ResponseWriter, r *http.Request) error {
	p := actor(r)
	httpapi.Entity(r, "user", p.User.ID)
	u, err := a.ChatLinks.Unlink(r.Context(), p.Actor)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, api.UserOf(u))
}

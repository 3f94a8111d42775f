package api

import (
	"time"

	"marketplace/internal/accounts"
)

// ChatLink is the chat account linked to a user (CONTRACT.md section 17).
type ChatLink struct {
	DiscordUserID   string    `json:"discordUserId" doc:"The chat account's user id (a Discord snowflake)."`
	DiscordUsername string    `json:"discordUsername" doc:"The chat account's name when the code was issued."`
	LinkedAt        time.Time `json:"linkedAt"`
}

// ChatLinkOf is l, or nil (null) when no chat account is linked.
func ChatLinkOf(l *accounts.DiscordLink) *ChatLink {
	if l == nil {
		return nil
	}
	return &ChatLink{DiscordUserID: l.DiscordUserID, DiscordUsername: l.DiscordUsername, LinkedAt: l.LinkedAt}
}

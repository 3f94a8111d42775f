// Package agentv1 is Variant B of the interface: snake_case JSON under /v1,
// the surface written for agents. Lists answer objects ({addresses: [...]}).
package agentv1

import (
	"context"
	"net/http"
	"time"

	"marketplace/internal/accounts"
	"marketplace/internal/agents"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
	"marketplace/internal/notify"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
	"marketplace/internal/sandbox"
	"marketplace/internal/shipping"
	"marketplace/internal/webhooks"
)

// Prefix is where Variant B lives.
const Prefix = "/v1"

// Surface is Variant B's spelling: snake_case, the canonical form, but for
// the fields this surface names otherwise.
var Surface = &httpapi.Surface{Prefix: Prefix, Casing: httpapi.Snake, Names: map[string]string{
	"photo_urls": "photos",
	// Offers: the spec's names for an offer's amounts in request bodies.
	"offer_price":   "amount",
	"counter_price": "counter_amount",
	// The multipart create takes the seller's words as brief_description;
	// the listing's description is what the generator writes from them.
	"POST " + Prefix + "/listings description": "brief_description",
	// Messages are sent as 'message' (the spec's name on this surface).
	"POST " + Prefix + "/messages content": "message",
}}

// API holds the services Variant B calls.
type API struct {
	Accounts *accounts.Service
	Agents   *agents.Service
	Listings *listings.Service
	Photos   *listings.Photos
	Shipping *shipping.Service
	Payments *payments.Service
	Orders   *orders.Service
	Messages *messaging.Service
	Offers   *offers.Service
	Notify   *notify.Service
	Webhooks *webhooks.Service
	Feed     *events.FeedService
	// PublicURL is where the service is reached (magic links, label URLs).
	PublicURL string

	// Sandbox serves the /v1/sandbox helpers (sandbox mode only), which move
	// Clock, reset data through SandboxStore and issue chat-link codes
	// through ChatLinks.
	Sandbox      bool
	Clock        SandboxClock
	SandboxStore sandbox.Store
	ChatLinks    *accounts.ChatLinks
	// Gate answers FEATURE_DISABLED while a feature flag is off (ToolFlags).
	Gate func(ctx context.Context, flag string) error

	router *httpapi.Router // Variant B's routes, for tools that share their idempotency records
}

func actor(r *http.Request) market.Actor { return httpapi.ActorOf(r) }

// Register adds every Variant B route to rt.
func (a *API) Register(rt *httpapi.Router) {
	rt = rt.Mount(Surface)
	p := Prefix
	rt.Handle("POST", p+"/auth/keys", httpapi.Bearer, a.createKey)
	rt.Handle("GET", p+"/auth/whoami", httpapi.Agent, a.whoami)
	rt.Handle("DELETE", p+"/auth/keys/{id}", httpapi.Bearer, a.revokeKey)
	rt.Handle("GET", p+"/account", httpapi.Either, a.account)
	rt.Handle("GET", p+"/account/spending", httpapi.Either, a.spending)
	rt.Handle("GET", p+"/account/addresses", httpapi.Either, a.addresses)
	rt.Handle("GET", p+"/categories", httpapi.Either, a.categories)
	rt.Handle("GET", p+"/search", httpapi.Either, a.search)
	rt.Handle("GET", p+"/search/similar/{id}", httpapi.Either, a.similar)
	rt.Handle("GET", p+"/search/price-check", httpapi.Either, a.priceCheck)
	rt.Handle("POST", p+"/listings", httpapi.Either, a.createListing)
	rt.Handle("GET", p+"/listings/mine", httpapi.Either, a.myListings)
	rt.Handle("GET", p+"/listings/{id}", httpapi.Either, a.getListing)
	rt.Handle("PATCH", p+"/listings/{id}", httpapi.Either, a.updateListing)
	rt.Handle("DELETE", p+"/listings/{id}", httpapi.Either, a.archiveListing)

	a.RegisterShipping(rt)
	a.RegisterPayments(rt)
	a.RegisterOrders(rt)
	a.RegisterDisputes(rt)
	a.RegisterMessages(rt)
	a.RegisterOffers(rt)
	a.RegisterWebhooks(rt)
	a.RegisterEvents(rt)
	a.RegisterToolsOpenAI(rt)
	if a.Sandbox {
		a.RegisterSandbox(rt, a.Clock)
		a.RegisterOutbox(rt)
	}
}

type limits struct {
	PerTransactionLimit *int64 `json:"per_transaction_limit"`
	DailyLimit          *int64 `json:"daily_limit"`
	WeeklyLimit         *int64 `json:"weekly_limit"`
	MonthlyLimit        *int64 `json:"monthly_limit"`
}

func toLimits(l agents.Limits) *limits {
	if l.Empty() {
		return nil
	}
	return &limits{PerTransactionLimit: l.PerTransaction, DailyLimit: l.Daily, WeeklyLimit: l.Weekly, MonthlyLimit: l.Monthly}
}

type agentKey struct {
	ID               string     `json:"id"`
	KeyID            string     `json:"key_id" doc:"Same as 'id'."`
	Key              string     `json:"key,omitempty" doc:"The secret, in the answer that creates the key only (see 'NewAgentKey')."`
	KeyPrefix        string     `json:"key_prefix" doc:"The first characters of the secret, to tell keys apart."`
	Label            string     `json:"label"`
	Scope            string     `json:"scope" ref:"Scope"`
	Status           string     `json:"status" ref:"KeyStatus"`
	SpendingControls *limits    `json:"spending_controls" doc:"The key's own caps, or null when it has none."`
	CreatedAt        time.Time  `json:"created_at"`
	LastUsedAt       *time.Time `json:"last_used_at"`
	FrozenReason     *string    `json:"frozen_reason" enum:"owner,admin,rate_limit_abuse,purchase_velocity" doc:"Why the key is frozen (owner, admin, rate_limit_abuse, purchase_velocity); null unless frozen."`
	RevokedAt        *time.Time `json:"revoked_at"`
}

func toKey(k *agents.Key) agentKey {
	out := agentKey{ID: k.ID, KeyID: k.ID, KeyPrefix: k.Prefix, Label: k.Label, Scope: k.Scope.Short(), Status: string(k.Status),
		SpendingControls: toLimits(k.Limits), CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
	if k.Status == agents.KeyFrozen && k.FrozenReason != "" {
		r := string(k.FrozenReason)
		out.FrozenReason = &r
	}
	return out
}

type createKeyBody struct {
	Label            string  `json:"label" minLength:"1" maxLength:"100" required:"true" doc:"Trimmed; 1 to 100 characters."`
	Scope            string  `json:"scope" enum:"buy,sell,buy_sell,buy_only,sell_only" required:"true" doc:"Variant B names; 'buy_only' and 'sell_only' are accepted too."`
	SpendingControls *limits `json:"spending_controls" ref:"KeyLimitsInput"`
	// The Variant B body does not carry the terms flag; calling this route is
	// taken as accepting the agent terms unless it says false.
	AcceptedAgentTerms *bool `json:"accepted_agent_terms" doc:"Absent or null counts as acceptance; 'false' is refused."`
}

func (a *API) createKey(w http.ResponseWriter, r *http.Request) error {
	var b createKeyBody
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	in := agents.KeyInput{Label: b.Label, Scope: b.Scope, AcceptedAgentTerms: b.AcceptedAgentTerms == nil || *b.AcceptedAgentTerms}
	if b.SpendingControls != nil {
		in.Limits = agents.Limits{PerTransaction: b.SpendingControls.PerTransactionLimit, Daily: b.SpendingControls.DailyLimit,
			Weekly: b.SpendingControls.WeeklyLimit, Monthly: b.SpendingControls.MonthlyLimit}
	}
	k, err := a.Agents.CreateKey(r.Context(), httpapi.PrincipalOf(r).Actor, in)
	if err != nil {
		return err
	}
	httpapi.Entity(r, "agent_key", k.ID)
	out := toKey(&k.Key)
	out.Key = k.Secret
	return httpapi.OK(w, r, http.StatusCreated, out)
}

func (a *API) revokeKey(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	httpapi.Entity(r, "agent_key", id)
	k, err := a.Agents.Revoke(r.Context(), httpapi.PrincipalOf(r).Actor, id)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toKey(k))
}

type whoami struct {
	Agent struct {
		KeyID string `json:"key_id"`
		Label string `json:"label"`
		Scope string `json:"scope" ref:"Scope"`
	} `json:"agent"`
	Owner struct {
		UserID           string `json:"user_id"`
		DisplayName      string `json:"display_name"`
		TrustTier        string `json:"trust_tier" ref:"TrustTier"`
		IdentityVerified bool   `json:"identity_verified"`
	} `json:"owner"`
	Spending struct {
		PerTransactionLimit int64 `json:"per_transaction_limit"`
		DailyRemaining      int64 `json:"daily_remaining" minimum:"0"`
		WeeklyRemaining     int64 `json:"weekly_remaining" minimum:"0"`
		MonthlyRemaining    int64 `json:"monthly_remaining" minimum:"0"`
	} `json:"spending"`
}

func (a *API) whoami(w http.ResponseWriter, r *http.Request) error {
	out, err := a.whoamiOf(r.Context(), httpapi.PrincipalOf(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// whoamiOf is GET /v1/auth/whoami and the whoami tool.
func (a *API) whoamiOf(ctx context.Context, p *httpapi.Principal) (*whoami, error) {
	st, err := a.Agents.Spending(ctx, p.Actor, p.Key)
	if err != nil {
		return nil, err
	}
	var out whoami
	out.Agent.KeyID, out.Agent.Label, out.Agent.Scope = p.Key.ID, p.Key.Label, p.Key.Scope.Short()
	out.Owner.UserID, out.Owner.DisplayName, out.Owner.TrustTier = p.User.ID, p.User.DisplayName, string(p.User.TrustTier)
	out.Owner.IdentityVerified = p.User.IdentityVerified
	out.Spending.PerTransactionLimit = perTransaction(st)
	out.Spending.DailyRemaining, out.Spending.WeeklyRemaining, out.Spending.MonthlyRemaining = st.Remaining.Daily, st.Remaining.Weekly, st.Remaining.Monthly
	return &out, nil
}

// strOrNil is s, or null when empty.
func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// perTransaction is the per-purchase cap in force: the owner's, or the
// key's own when tighter.
func perTransaction(st *agents.SpendingStatus) int64 {
	v := st.Controls.PerTransaction
	if st.KeyLimits != nil && st.KeyLimits.PerTransaction != nil && *st.KeyLimits.PerTransaction < v {
		v = *st.KeyLimits.PerTransaction
	}
	return v
}

type account struct {
	ID               string    `json:"id"`
	UserID           string    `json:"user_id"`
	Email            string    `json:"email" format:"email"`
	Username         string    `json:"username"`
	DisplayName      string    `json:"display_name"`
	AvatarURL        *string   `json:"avatar_url"`
	Discord          *chatLink `json:"discord" doc:"The linked chat account, or null."`
	Role             string    `json:"role" enum:"user,admin"`
	Status           string    `json:"status" enum:"active,suspended,banned"`
	TrustTier        string    `json:"trust_tier" ref:"TrustTier"`
	IdentityVerified bool      `json:"identity_verified"`
	PasswordSet      bool      `json:"password_set" doc:"False for an account made by Google sign-in that has not set a password yet."`
	CreatedAt        time.Time `json:"created_at"`
}

func (a *API) account(w http.ResponseWriter, r *http.Request) error {
	return httpapi.OK(w, r, http.StatusOK, accountOf(httpapi.PrincipalOf(r)))
}

// accountOf is GET /v1/account and the get_account tool.
func accountOf(p *httpapi.Principal) account {
	u := p.User
	return account{ID: u.ID, UserID: u.ID, Email: u.Email, Username: u.Username,
		DisplayName: u.DisplayName, AvatarURL: strOrNil(u.AvatarURL), Role: string(u.Role), Status: string(u.Status),
		TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified, PasswordSet: u.PasswordHash != "", CreatedAt: u.CreatedAt,
		Discord: toChatLink(u.Discord)}
}

// chatLink is the chat account linked to the user (CONTRACT.md section 17).
type chatLink struct {
	DiscordUserID   string    `json:"discord_user_id"`
	DiscordUsername string    `json:"discord_username"`
	LinkedAt        time.Time `json:"linked_at"`
}

func toChatLink(l *accounts.DiscordLink) *chatLink {
	if l == nil {
		return nil
	}
	return &chatLink{DiscordUserID: l.DiscordUserID, DiscordUsername: l.DiscordUsername, LinkedAt: l.LinkedAt}
}

type spendingStatus struct {
	PerTransactionLimit  int64    `json:"per_transaction_limit"`
	DailyLimit           int64    `json:"daily_limit"`
	WeeklyLimit          int64    `json:"weekly_limit"`
	MonthlyLimit         int64    `json:"monthly_limit"`
	CategoryRestrictions []string `json:"category_restrictions" doc:"Blocked category ids or slugs."`
	ApprovalThreshold    *int64   `json:"approval_threshold"`
	KeyLimits            *limits  `json:"key_limits" doc:"The calling key's own caps; null for humans and for keys without caps."`
	SpentToday           int64    `json:"spent_today"`
	SpentThisWeek        int64    `json:"spent_this_week"`
	SpentThisMonth       int64    `json:"spent_this_month"`
	DailyRemaining       int64    `json:"daily_remaining" minimum:"0"`
	WeeklyRemaining      int64    `json:"weekly_remaining" minimum:"0"`
	MonthlyRemaining     int64    `json:"monthly_remaining" minimum:"0"`
	ReservedForOffers    int64    `json:"reserved_for_offers" minimum:"0" doc:"Cents the owner's agents' open offers hold of the caps: each offer's committed amount plus the buyer's fee, counted as if bought now; the remaining amounts already leave it out."`
}

func (a *API) spending(w http.ResponseWriter, r *http.Request) error {
	out, err := a.spendingOf(r.Context(), httpapi.PrincipalOf(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// spendingOf is GET /v1/account/spending and the get_spending_controls tool.
func (a *API) spendingOf(ctx context.Context, p *httpapi.Principal) (*spendingStatus, error) {
	st, err := a.Agents.Spending(ctx, p.Actor, p.Key)
	if err != nil {
		return nil, err
	}
	c := st.Controls
	out := spendingStatus{PerTransactionLimit: c.PerTransaction, DailyLimit: c.Daily, WeeklyLimit: c.Weekly, MonthlyLimit: c.Monthly,
		CategoryRestrictions: c.CategoryRestrictions, ApprovalThreshold: c.ApprovalThreshold,
		SpentToday: st.Spent.Today, SpentThisWeek: st.Spent.ThisWeek, SpentThisMonth: st.Spent.ThisMonth,
		DailyRemaining: st.Remaining.Daily, WeeklyRemaining: st.Remaining.Weekly, MonthlyRemaining: st.Remaining.Monthly,
		ReservedForOffers: st.ReservedForOffers}
	if st.KeyLimits != nil {
		out.KeyLimits = toLimits(*st.KeyLimits)
	}
	return &out, nil
}

// address is a saved address: a postal address with its id.
type address struct {
	ID string `json:"id"`
	shipTo
	IsDefault bool      `json:"is_default"`
	CreatedAt time.Time `json:"created_at"`
}

func (a *API) addresses(w http.ResponseWriter, r *http.Request) error {
	out, err := a.addressesOf(r.Context(), httpapi.PrincipalOf(r))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

// addressesOf is GET /v1/account/addresses and the get_addresses tool.
func (a *API) addressesOf(ctx context.Context, p *httpapi.Principal) (*addressList, error) {
	list, err := a.Accounts.Addresses(ctx, p.Actor)
	if err != nil {
		return nil, err
	}
	out := make([]address, len(list))
	for i, ad := range list {
		out[i] = address{ID: ad.ID, shipTo: toShipTo(ad), IsDefault: ad.IsDefault, CreatedAt: ad.CreatedAt}
	}
	return &addressList{Addresses: out, Total: len(out)}, nil
}

type addressList struct {
	Addresses []address `json:"addresses"`
	Total     int       `json:"total" minimum:"0"`
}

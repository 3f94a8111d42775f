package api

import (
	"context"
	"time"

	"marketplace/internal/agents"
	"marketplace/internal/market"
)

// KeyLimits are a key's own caps in cents; nil for no cap at a level. It is
// both a view and a request's part (a key's spending controls as given).
type KeyLimits struct {
	PerTransactionLimit *int64 `json:"perTransactionLimit"`
	DailyLimit          *int64 `json:"dailyLimit"`
	WeeklyLimit         *int64 `json:"weeklyLimit"`
	MonthlyLimit        *int64 `json:"monthlyLimit"`
}

// KeyLimitsOf is l as shown: nil when the key has no caps at all.
func KeyLimitsOf(l agents.Limits) *KeyLimits {
	if l.Empty() {
		return nil
	}
	return &KeyLimits{PerTransactionLimit: l.PerTransaction, DailyLimit: l.Daily, WeeklyLimit: l.Weekly, MonthlyLimit: l.Monthly}
}

// Limits is l as the agents service takes it; no caps for nil.
func (l *KeyLimits) Limits() agents.Limits {
	if l == nil {
		return agents.Limits{}
	}
	return agents.Limits{PerTransaction: l.PerTransactionLimit, Daily: l.DailyLimit, Weekly: l.WeeklyLimit, Monthly: l.MonthlyLimit}
}

// AgentKey is an agent key as its owner (or an admin) sees it. Variant B
// repeats the id as key_id and names the scope in its short words.
type AgentKey struct {
	ID               string         `json:"id"`
	KeyID            string         `json:"-" snake:"key_id" doc:"Same as 'id'."`
	Key              string         `json:"key,omitempty" doc:"The secret, in the answer that creates the key only (see 'NewAgentKey')."`
	KeyPrefix        string         `json:"keyPrefix" doc:"The first characters of the secret, to tell keys apart."`
	Label            string         `json:"label"`
	Scope            string         `json:"scope" ref:"Scope"`
	Status           string         `json:"status" ref:"KeyStatus"`
	SpendingControls *KeyLimits     `json:"spendingControls" doc:"The key's own caps, or null when it has none."`
	Metadata         map[string]any `json:"metadata,omitempty" doc:"Free-form metadata given at creation; absent when none."`
	CreatedAt        time.Time      `json:"createdAt"`
	LastUsedAt       *time.Time     `json:"lastUsedAt" doc:"Updated at most once a minute."`
	FrozenAt         *time.Time     `json:"frozenAt"`
	FrozenReason     *string        `json:"frozenReason" enum:"owner,admin,rate_limit_abuse,purchase_velocity" doc:"Why the key is frozen: the owner's freeze, an admin's, the rate-limit abuse rule or the purchase-velocity rule; null unless frozen."`
	RevokedAt        *time.Time     `json:"revokedAt"`
}

// scopeName is a scope in the words of casing c's surface.
func scopeName(s agents.Scope, c Casing) string {
	if c == Snake {
		return s.Short()
	}
	return string(s)
}

// KeyOf is k as shown on a surface of casing c. The secret is never part
// of it (NewKeyOf adds it, once); the frozen reason shows while the key is
// frozen only (a key unfrozen or revoked since keeps it recorded).
func KeyOf(k *agents.Key, c Casing) *AgentKey {
	out := &AgentKey{ID: k.ID, KeyID: k.ID, KeyPrefix: k.Prefix, Label: k.Label, Scope: scopeName(k.Scope, c),
		Status: string(k.Status), SpendingControls: KeyLimitsOf(k.Limits), Metadata: k.Metadata, CreatedAt: k.CreatedAt,
		LastUsedAt: k.LastUsedAt, FrozenAt: k.FrozenAt, RevokedAt: k.RevokedAt}
	if k.Status == agents.KeyFrozen && k.FrozenReason != "" {
		out.FrozenReason = strOrNil(string(k.FrozenReason))
	}
	return out
}

// KeysOf are ks as shown on a surface of casing c.
func KeysOf(ks []agents.Key, c Casing) []AgentKey {
	out := make([]AgentKey, len(ks))
	for i := range ks {
		out[i] = *KeyOf(&ks[i], c)
	}
	return out
}

// NewKeyOf is a key just created: the one answer that carries its secret.
func NewKeyOf(k *agents.NewKey, c Casing) *AgentKey {
	out := KeyOf(&k.Key, c)
	out.Key = k.Secret
	return out
}

// Controls are the owner's spending controls, in cents.
type Controls struct {
	PerTransactionLimit  int64    `json:"perTransactionLimit"`
	DailyLimit           int64    `json:"dailyLimit"`
	WeeklyLimit          int64    `json:"weeklyLimit"`
	MonthlyLimit         int64    `json:"monthlyLimit"`
	CategoryRestrictions []string `json:"categoryRestrictions" doc:"Blocked category ids or slugs."`
	ApprovalThreshold    *int64   `json:"approvalThreshold"`
}

// Spent is what agents spent in the current windows.
type Spent struct {
	Today     int64 `json:"today"`
	ThisWeek  int64 `json:"thisWeek"`
	ThisMonth int64 `json:"thisMonth"`
}

// Remaining is what may still be spent in the current windows.
type Remaining struct {
	Daily   int64 `json:"daily" minimum:"0"`
	Weekly  int64 `json:"weekly" minimum:"0"`
	Monthly int64 `json:"monthly" minimum:"0"`
}

// SpendingStatus is the controls and where spending stands against them.
type SpendingStatus struct {
	Controls  Controls   `json:"controls"`
	KeyLimits *KeyLimits `json:"keyLimits,omitempty"`
	Spent     Spent      `json:"spent"`
	Remaining Remaining  `json:"remaining"`
	// ReservedForOffers is held by open offers of the owner's agents.
	ReservedForOffers int64 `json:"reservedForOffers" minimum:"0" doc:"Cents the owner's agents' open offers hold of the caps: each offer's committed amount plus the buyer's fee, counted as if bought now; 'remaining' already leaves it out."`
}

// SpendingOf is s as shown.
func SpendingOf(s *agents.SpendingStatus) *SpendingStatus {
	c := s.Controls
	out := &SpendingStatus{
		Controls: Controls{PerTransactionLimit: c.PerTransaction, DailyLimit: c.Daily, WeeklyLimit: c.Weekly, MonthlyLimit: c.Monthly,
			CategoryRestrictions: c.CategoryRestrictions, ApprovalThreshold: c.ApprovalThreshold},
		Spent:             Spent{Today: s.Spent.Today, ThisWeek: s.Spent.ThisWeek, ThisMonth: s.Spent.ThisMonth},
		Remaining:         Remaining{Daily: s.Remaining.Daily, Weekly: s.Remaining.Weekly, Monthly: s.Remaining.Monthly},
		ReservedForOffers: s.ReservedForOffers,
	}
	if s.KeyLimits != nil {
		out.KeyLimits = KeyLimitsOf(*s.KeyLimits)
	}
	return out
}

// FlatSpending is SpendingStatus with each figure a field of its own, as
// Variant B's GET /v1/account/spending gives it; the key's own caps are
// always there (null when none).
type FlatSpending struct {
	Controls
	KeyLimits         *KeyLimits `json:"keyLimits" doc:"The calling key's own caps; null for humans and for keys without caps."`
	SpentToday        int64      `json:"spentToday"`
	SpentThisWeek     int64      `json:"spentThisWeek"`
	SpentThisMonth    int64      `json:"spentThisMonth"`
	DailyRemaining    int64      `json:"dailyRemaining" minimum:"0"`
	WeeklyRemaining   int64      `json:"weeklyRemaining" minimum:"0"`
	MonthlyRemaining  int64      `json:"monthlyRemaining" minimum:"0"`
	ReservedForOffers int64      `json:"reservedForOffers" minimum:"0" doc:"Cents the owner's agents' open offers hold of the caps: each offer's committed amount plus the buyer's fee, counted as if bought now; the remaining amounts already leave it out."`
}

// Flat is v with each figure a field of its own.
func (v *SpendingStatus) Flat() *FlatSpending {
	return &FlatSpending{Controls: v.Controls, KeyLimits: v.KeyLimits,
		SpentToday: v.Spent.Today, SpentThisWeek: v.Spent.ThisWeek, SpentThisMonth: v.Spent.ThisMonth,
		DailyRemaining: v.Remaining.Daily, WeeklyRemaining: v.Remaining.Weekly, MonthlyRemaining: v.Remaining.Monthly,
		ReservedForOffers: v.ReservedForOffers}
}

// AgentMe is Variant A's GET /auth/me with an agent key: the owner, the key
// and what it may still spend.
type AgentMe struct {
	UserID           string     `json:"userId"`
	Email            string     `json:"email" format:"email"`
	Username         string     `json:"username"`
	DisplayName      string     `json:"displayName"`
	TrustTier        string     `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool       `json:"identityVerified"`
	KeyID            string     `json:"keyId"`
	Label            string     `json:"label"`
	Scope            string     `json:"scope" ref:"Scope"`
	SpendingControls Controls   `json:"spendingControls"`
	KeyLimits        *KeyLimits `json:"keyLimits"`
	Remaining        Remaining  `json:"remaining"`
}

// Whoami is Variant B's who-am-I of an agent key: the key, its owner and
// what the key may still spend.
type Whoami struct {
	Agent    WhoamiAgent    `json:"agent"`
	Owner    WhoamiOwner    `json:"owner"`
	Spending WhoamiSpending `json:"spending"`
}

// WhoamiAgent is the key of a Whoami.
type WhoamiAgent struct {
	KeyID string `json:"keyId"`
	Label string `json:"label"`
	Scope string `json:"scope" ref:"Scope"`
}

// WhoamiOwner is the key's owner.
type WhoamiOwner struct {
	UserID           string `json:"userId"`
	DisplayName      string `json:"displayName"`
	TrustTier        string `json:"trustTier" ref:"TrustTier"`
	IdentityVerified bool   `json:"identityVerified"`
}

// WhoamiSpending is what the key may still spend.
type WhoamiSpending struct {
	PerTransactionLimit int64 `json:"perTransactionLimit"`
	DailyRemaining      int64 `json:"dailyRemaining" minimum:"0"`
	WeeklyRemaining     int64 `json:"weeklyRemaining" minimum:"0"`
	MonthlyRemaining    int64 `json:"monthlyRemaining" minimum:"0"`
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

// Keys are the operations on agent keys and spending controls, for a
// surface of casing Casing (a key's scope is named in its words).
type Keys struct {
	Service *agents.Service
	Casing  Casing
}

// Create makes an agent key for the caller; the answer holds its secret.
func (x Keys) Create(ctx context.Context, c *Caller, in agents.KeyInput) (*AgentKey, error) {
	return viewOf(func(k *agents.NewKey) *AgentKey { return NewKeyOf(k, x.Casing) })(x.Service.CreateKey(ctx, c.Actor, in))
}

// List is the caller's keys.
func (x Keys) List(ctx context.Context, c *Caller) ([]AgentKey, error) {
	keys, err := x.Service.Keys(ctx, c.Actor)
	if err != nil {
		return nil, err
	}
	return KeysOf(keys, x.Casing), nil
}

// Revoke ends one of the caller's keys for good.
func (x Keys) Revoke(ctx context.Context, c *Caller, id string) (*AgentKey, error) {
	return viewOf(x.keyOf)(x.Service.Revoke(ctx, c.Actor, id))
}

// Freeze is the owner's panic button on one of their keys.
func (x Keys) Freeze(ctx context.Context, c *Caller, id string) (*AgentKey, error) {
	return viewOf(x.keyOf)(x.Service.Freeze(ctx, c.Actor, id))
}

// Unfreeze lets a frozen key act again.
func (x Keys) Unfreeze(ctx context.Context, c *Caller, id string) (*AgentKey, error) {
	return viewOf(x.keyOf)(x.Service.Unfreeze(ctx, c.Actor, id))
}

// AdminFreeze is an admin's freeze of a user's key.
func (x Keys) AdminFreeze(ctx context.Context, c *Caller, userID, id string) (*AgentKey, error) {
	return viewOf(x.keyOf)(x.Service.AdminFreeze(ctx, c.Actor, userID, id))
}

// AdminRevoke is an admin's revocation of a user's key.
func (x Keys) AdminRevoke(ctx context.Context, c *Caller, userID, id string) (*AgentKey, error) {
	return viewOf(x.keyOf)(x.Service.AdminRevoke(ctx, c.Actor, userID, id))
}

func (x Keys) keyOf(k *agents.Key) *AgentKey { return KeyOf(k, x.Casing) }

// Spending is where the caller's spending stands; for an agent, with its
// key's own caps.
func (x Keys) Spending(ctx context.Context, c *Caller) (*SpendingStatus, error) {
	return viewOf(SpendingOf)(x.Service.Spending(ctx, c.Actor, c.Key))
}

// KeySpending is one of the owner's keys with where its spending stands:
// the account's caps, the key's own, and what the key itself spent (when
// it has caps of its own).
type KeySpending struct {
	Key      *AgentKey
	Status   *SpendingStatus
	KeySpent *Spent
}

// KeySpending reads one of the caller's keys and its spending; another
// user's key is NOT_FOUND.
func (x Keys) KeySpending(ctx context.Context, c *Caller, id string) (*KeySpending, error) {
	k, err := x.Service.Key(ctx, id)
	if err != nil {
		return nil, err
	}
	if k.UserID != c.Actor.UserID {
		return nil, market.NotFound("agent key")
	}
	st, err := x.Service.Spending(ctx, c.Actor, k)
	if err != nil {
		return nil, err
	}
	out := &KeySpending{Key: x.keyOf(k), Status: SpendingOf(st)}
	if st.KeySpent != nil {
		out.KeySpent = &Spent{Today: st.KeySpent.Today, ThisWeek: st.KeySpent.ThisWeek, ThisMonth: st.KeySpent.ThisMonth}
	}
	return out, nil
}

// UpdateControls changes the owner's spending controls.
func (x Keys) UpdateControls(ctx context.Context, c *Caller, upd agents.ControlsUpdate) (*SpendingStatus, error) {
	return viewOf(SpendingOf)(x.Service.UpdateControls(ctx, c.Actor, upd))
}

// Me is Variant A's GET /auth/me: the User for a human, AgentMe for an
// agent key.
func (x Keys) Me(ctx context.Context, c *Caller) (any, error) {
	if c.Key == nil {
		return UserOf(c.User), nil
	}
	st, err := x.Service.Spending(ctx, c.Actor, c.Key)
	if err != nil {
		return nil, err
	}
	s, u := SpendingOf(st), c.User
	return &AgentMe{UserID: u.ID, Email: u.Email, Username: u.Username, DisplayName: u.DisplayName,
		TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified,
		KeyID: c.Key.ID, Label: c.Key.Label, Scope: scopeName(c.Key.Scope, x.Casing),
		SpendingControls: s.Controls, KeyLimits: s.KeyLimits, Remaining: s.Remaining}, nil
}

// Whoami is Variant B's who-am-I of the calling agent key.
func (x Keys) Whoami(ctx context.Context, c *Caller) (*Whoami, error) {
	st, err := x.Service.Spending(ctx, c.Actor, c.Key)
	if err != nil {
		return nil, err
	}
	k, u := c.Key, c.User
	return &Whoami{
		Agent: WhoamiAgent{KeyID: k.ID, Label: k.Label, Scope: scopeName(k.Scope, x.Casing)},
		Owner: WhoamiOwner{UserID: u.ID, DisplayName: u.DisplayName, TrustTier: string(u.TrustTier), IdentityVerified: u.IdentityVerified},
		Spending: WhoamiSpending{PerTransactionLimit: perTransaction(st), DailyRemaining: st.Remaining.Daily,
			WeeklyRemaining: st.Remaining.Weekly, MonthlyRemaining: st.Remaining.Monthly},
	}, nil
}

// The onboarding answers are snake_case on both surfaces (CONTRACT.md
// section 4): agents of either read them, before they hold a key.

// OnboardingStarted is a new agent-initiated onboarding, with the secrets
// the agent must keep.
type OnboardingStarted struct {
	OnboardingID  string    `json:"onboarding_id"`
	MagicLink     string    `json:"magic_link" doc:"Single-use link for the human, valid 24 hours."`
	HumanTodoList []string  `json:"human_todo_list"`
	Status        string    `json:"status" ref:"OnboardingStatusValue"`
	PollSecret    string    `json:"poll_secret" doc:"Send it as 'X-Onboarding-Secret' when polling; it is the only way to receive the key."`
	ExpiresAt     time.Time `json:"expires_at"`
}

// OnboardingStatus is where an onboarding stands, as its agent polls it.
type OnboardingStatus struct {
	OnboardingID  string    `json:"onboarding_id"`
	Status        string    `json:"status" ref:"OnboardingStatusValue"`
	HumanTodoList []string  `json:"human_todo_list"`
	ExpiresAt     time.Time `json:"expires_at"`
	KeyID         *string   `json:"key_id" doc:"The agent key's id once the human completed the link."`
	AgentKey      string    `json:"agent_key,omitempty" doc:"The agent key's secret; present once, on the first poll with the secret after completion."`
	KeyDelivered  bool      `json:"agent_key_delivered"`
}

// Onboarding is agent-initiated onboarding (CONTRACT.md section 4): the
// magic links it makes lead to Variant A's page under PublicURL, whichever
// surface started it.
type Onboarding struct {
	Service   *agents.Service
	PublicURL string
}

// MagicLink is the page a magic link's token opens.
func (x Onboarding) MagicLink(token string) string {
	return x.PublicURL + "/api/v1/onboarding/complete/" + token
}

// Start begins an onboarding; in.MagicLink is set here.
func (x Onboarding) Start(ctx context.Context, in agents.AgentInitInput) (*OnboardingStarted, error) {
	in.MagicLink = x.MagicLink
	res, err := x.Service.AgentInit(ctx, in)
	if err != nil {
		return nil, err
	}
	o := res.Session
	return &OnboardingStarted{OnboardingID: o.ID, MagicLink: x.MagicLink(res.MagicToken), HumanTodoList: o.TodoList(),
		Status: string(o.Status), PollSecret: res.PollSecret, ExpiresAt: o.ExpiresAt}, nil
}

// Poll is where an onboarding stands; with the poll secret, the first poll
// after completion carries the key's secret, and none after.
func (x Onboarding) Poll(ctx context.Context, id, secret string) (*OnboardingStatus, error) {
	res, err := x.Service.Poll(ctx, id, secret)
	if err != nil {
		return nil, err
	}
	o := res.Session
	return &OnboardingStatus{OnboardingID: o.ID, Status: string(o.Status), HumanTodoList: o.TodoList(), ExpiresAt: o.ExpiresAt,
		KeyID: strOrNil(o.KeyID), AgentKey: res.AgentKey, KeyDelivered: o.KeyDeliveredAt != nil}, nil
}

// KeyOps are the agent key and spending operations.
func (o Ops) KeyOps() Keys { return Keys{Service: o.Agents, Casing: o.Casing} }

// OnboardingOps are the agent onboarding operations.
func (o Ops) OnboardingOps() Onboarding { return Onboarding{Service: o.Agents, PublicURL: o.PublicURL} }

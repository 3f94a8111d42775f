package console

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"marketplace/internal/agents"
	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
)

// agentsData is the agents page: the account's caps and where spending
// stands, each key with its own caps, and a key just created (its secret
// shown this once).
type agentsData struct {
	Spending *api.SpendingStatus
	Keys     []api.AgentKey
	NewKey   *api.AgentKey
	Error    *market.Error
}

func (c *Console) agentsPage(v *visit) error {
	return c.showAgents(v, http.StatusOK, agentsData{})
}

func (c *Console) showAgents(v *visit, status int, d agentsData) error {
	ctx, keys := v.r.Context(), c.Ops.KeyOps()
	var err error
	if d.Spending, err = keys.Spending(ctx, v.caller()); err != nil {
		return err
	}
	if d.Keys, err = keys.List(ctx, v.caller()); err != nil {
		return err
	}
	return c.render(v, status, "agents", d)
}

// again shows the agents page with a refusal, at its status.
func (c *Console) again(v *visit, err error) error {
	e := refusal(err)
	if e == nil {
		return err
	}
	return c.showAgents(v, httpapi.Status(e.Code), agentsData{Error: e})
}

// createKey creates a key as POST /agent-keys does and shows its secret once.
func (c *Console) createKey(v *visit) error {
	f := v.r.PostForm
	var check market.Check
	limits := capsOf(&check, f)
	if err := check.Err(); err != nil {
		return c.again(v, err)
	}
	k, err := c.Ops.KeyOps().Create(v.r.Context(), v.caller(), agents.KeyInput{Label: f.Get("label"), Scope: f.Get("scope"),
		Limits: limits, AcceptedAgentTerms: f.Get("acceptAgentTerms") == "on"})
	if err != nil {
		return c.again(v, err)
	}
	return c.showAgents(v, http.StatusCreated, agentsData{NewKey: k})
}

// keyAction freezes, unfreezes or revokes one of the caller's keys; another
// user's key is NOT_FOUND, as on the API.
func (c *Console) keyAction(v *visit) error {
	keys, id, ctx := c.Ops.KeyOps(), v.r.PathValue("id"), v.r.Context()
	var err error
	switch v.r.PathValue("action") {
	case "freeze":
		_, err = keys.Freeze(ctx, v.caller(), id)
	case "unfreeze":
		_, err = keys.Unfreeze(ctx, v.caller(), id)
	case "revoke":
		_, err = keys.Revoke(ctx, v.caller(), id)
	default:
		return market.Errorf(market.CodeNotFound, "no such page")
	}
	if err != nil {
		return c.again(v, err)
	}
	http.Redirect(v.w, v.r, "/agents", http.StatusSeeOther)
	return nil
}

// updateControls sets the account's caps and approval threshold as PUT
// /spending-controls does; an empty threshold clears it.
func (c *Console) updateControls(v *visit) error {
	f := v.r.PostForm
	var check market.Check
	caps := capsOf(&check, f)
	upd := agents.ControlsUpdate{PerTransaction: caps.PerTransaction, Daily: caps.Daily, Weekly: caps.Weekly, Monthly: caps.Monthly,
		ApprovalThreshold: cents(&check, f, "approvalThreshold", "Approval threshold")}
	upd.ClearApproval = upd.ApprovalThreshold == nil
	if err := check.Err(); err != nil {
		return c.again(v, err)
	}
	if _, err := c.Ops.KeyOps().UpdateControls(v.r.Context(), v.caller(), upd); err != nil {
		return c.again(v, err)
	}
	http.Redirect(v.w, v.r, "/agents", http.StatusSeeOther)
	return nil
}

// keyData is one key's page: its caps and spend against them, and the
// authorization record of each order it made.
type keyData struct {
	*api.KeySpending
	Orders []api.Order
	Total  int
}

// keyPage shows one of the owner's keys; another user's is NOT_FOUND.
func (c *Console) keyPage(v *visit) error {
	ctx, id := v.r.Context(), v.r.PathValue("id")
	ks, err := c.Ops.KeyOps().KeySpending(ctx, v.caller(), id)
	if err != nil {
		return err
	}
	d := keyData{KeySpending: ks}
	if d.Orders, d.Total, err = c.Ops.OrderOps().KeyOrders(ctx, v.caller(), id, 50, 0); err != nil {
		return err
	}
	return c.render(v, http.StatusOK, "agentkey", d)
}

// capsOf reads the four caps of a form (a key's own, or the account's);
// an empty one is nil.
func capsOf(check *market.Check, f url.Values) agents.Limits {
	return agents.Limits{
		PerTransaction: cents(check, f, "perTransactionLimit", "Per-transaction limit"),
		Daily:          cents(check, f, "dailyLimit", "Daily limit"),
		Weekly:         cents(check, f, "weeklyLimit", "Weekly limit"),
		Monthly:        cents(check, f, "monthlyLimit", "Monthly limit"),
	}
}

// cents reads an amount in dollars and cents ("150", "150.5", "150.00",
// "$1,500.00") as cents, exactly; empty is nil.
func cents(check *market.Check, f url.Values, field, label string) *int64 {
	s := strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(f.Get(field)), ",", ""), "$")
	if s == "" {
		return nil
	}
	whole, frac, dot := strings.Cut(s, ".")
	ok := whole != "" && len(whole) <= 10 && digits(whole) && (!dot || (len(frac) >= 1 && len(frac) <= 2 && digits(frac)))
	if !ok {
		check.Add(field, label+" must be an amount in dollars and cents, such as 150.00")
		return nil
	}
	for len(frac) < 2 {
		frac += "0"
	}
	n, _ := strconv.ParseInt(whole+frac, 10, 64)
	return &n
}

func digits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

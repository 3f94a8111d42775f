package console

import (
	"net/http"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/orders"
	"marketplace/internal/payments"
)

// payoutsData is the seller's payouts page: the payout account (nil
// before one is opened), where the money stands as GET /seller/dashboard
// says, and a page of sales with each one's payout.
type payoutsData struct {
	Account *api.PayoutAccount
	Money   *orders.Dashboard
	Sales   []api.Order
	Page    pager
	Error   *market.Error
}

// Verified is whether the processor pays this seller out.
func (d payoutsData) Verified() bool {
	return d.Account != nil && d.Account.Status == string(payments.AccountVerified)
}

func (c *Console) payoutsPage(v *visit) error {
	return c.showPayouts(v, http.StatusOK, nil)
}

func (c *Console) showPayouts(v *visit, status int, refusal *market.Error) error {
	ctx, caller := v.r.Context(), v.caller()
	d := payoutsData{Error: refusal}
	var err error
	// GET /seller/connect: NOT_FOUND is a seller with no account yet.
	if d.Account, err = c.Ops.PaymentOps().PayoutAccount(ctx, caller); err != nil && market.CodeOf(err) != market.CodeNotFound {
		return err
	}
	if d.Money, err = c.Ops.Orders.Dashboard(ctx, caller.Actor); err != nil {
		return err
	}
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	var total int
	if d.Sales, total, err = c.Ops.OrderOps().List(ctx, caller, "seller", "", limit, offset); err != nil {
		return err
	}
	d.Page = pageOf(len(d.Sales), total, limit, offset, pageLinks("/payouts", nil, limit))
	d.Page.PrevText, d.Page.NextText = "Newer", "Older"
	return c.render(v, status, "payouts", d)
}

// payoutConnect opens the seller's payout account as POST /seller/connect
// does (the one already open is kept); the page then links to the
// processor's identity verification.
func (c *Console) payoutConnect(v *visit) error {
	if _, err := c.Ops.Payments.Connect(v.r.Context(), v.caller().Actor, payments.ConnectInput{}); err != nil {
		e := refusal(err)
		if e == nil {
			return err
		}
		return c.showPayouts(v, httpapi.Status(e.Code), e)
	}
	http.Redirect(v.w, v.r, "/payouts", http.StatusSeeOther)
	return nil
}

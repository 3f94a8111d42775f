package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// RegisterDashboard adds the seller dashboard.
func (a *API) RegisterDashboard(rt *httpapi.Router) {
	rt = rt.In("seller_dashboard", "payouts")
	rt.Handle("GET", Prefix+"/seller/dashboard", httpapi.Bearer, a.sellerDashboard)
}

type dashboardOut struct {
	Listings    dashboardListings `json:"listings"`
	Sales       dashboardSales    `json:"sales"`
	Payouts     dashboardPayouts  `json:"payouts"`
	Disputes    dashboardDisputes `json:"disputes"`
	ActionItems []actionItemOut   `json:"actionItems"`
}

type dashboardListings struct {
	Active     int `json:"active" minimum:"0"`
	Held       int `json:"held" minimum:"0"`
	Reserved   int `json:"reserved" minimum:"0"`
	Sold       int `json:"sold" minimum:"0"`
	Generating int `json:"generating" minimum:"0"`
}

type dashboardSales struct {
	Count       int   `json:"count" minimum:"0"`
	Last30Days  int   `json:"last30Days" minimum:"0"`
	GrossSales  int64 `json:"grossSales" minimum:"0"`
	GrossLast30 int64 `json:"grossSalesLast30Days" minimum:"0"`
	Commission  int64 `json:"commission" minimum:"0"`
	Refunded    int64 `json:"refunded" minimum:"0"`
	NetEarnings int64 `json:"netEarnings"`
	AverageSale int64 `json:"averageSalePrice" minimum:"0"`
}

type dashboardPayouts struct {
	Upcoming      int64      `json:"upcoming"`
	Pending       int64      `json:"pending" minimum:"0"`
	PendingCount  int        `json:"pendingCount" minimum:"0"`
	Frozen        int64      `json:"frozen" minimum:"0"`
	FrozenCount   int        `json:"frozenCount" minimum:"0"`
	Released      int64      `json:"released"`
	ReleasedCount int        `json:"releasedCount" minimum:"0"`
	NextReleaseAt *time.Time `json:"nextReleaseAt"`
}

type dashboardDisputes struct {
	Open             int `json:"open" minimum:"0"`
	AwaitingResponse int `json:"awaitingResponse" minimum:"0"`
}

type actionItemOut struct {
	OrderID      string    `json:"orderId" format:"uuid"`
	ListingTitle string    `json:"listingTitle"`
	Action       string    `json:"action" enum:"ship,mark_pickup_ready,answer_refund_request,respond_to_dispute"`
	Since        time.Time `json:"since"`
	RefundID     *string   `json:"refundId,omitempty" format:"uuid"`
	DisputeID    *string   `json:"disputeId,omitempty" format:"uuid"`
}

// sellerDashboard is GET /seller/dashboard.
func (a *API) sellerDashboard(w http.ResponseWriter, r *http.Request) error {
	d, err := a.Orders.Dashboard(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toDashboard(d))
}

func toDashboard(d *orders.Dashboard) dashboardOut {
	l, s, p := d.Listings, d.Sales, d.Payouts
	out := dashboardOut{
		Listings: dashboardListings{Active: l.Active, Held: l.Held, Reserved: l.Reserved, Sold: l.Sold, Generating: l.Generating},
		Sales: dashboardSales{Count: s.Count, Last30Days: s.CountRecent, GrossSales: s.GrossSales, GrossLast30: s.GrossRecent,
			Commission: s.Commission, Refunded: s.Refunded, NetEarnings: s.NetEarnings, AverageSale: s.AveragePrice},
		Payouts: dashboardPayouts{Upcoming: p.Upcoming, Pending: p.Pending, PendingCount: p.PendingCount, Frozen: p.Frozen,
			FrozenCount: p.FrozenCount, Released: p.Released, ReleasedCount: p.ReleasedCount, NextReleaseAt: p.NextReleaseAt},
		Disputes:    dashboardDisputes{Open: d.Disputes.Open, AwaitingResponse: d.Disputes.AwaitingResponse},
		ActionItems: make([]actionItemOut, 0, len(d.Actions)),
	}
	for _, it := range d.Actions {
		item := actionItemOut{OrderID: it.OrderID, ListingTitle: it.ListingTitle, Action: it.Action, Since: it.Since}
		switch it.Action {
		case "answer_refund_request":
			item.RefundID = &it.RefID
		case "respond_to_dispute":
			item.DisputeID = &it.RefID
		}
		out.ActionItems = append(out.ActionItems, item)
	}
	return out
}

package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/orders"
)

// RegisterAdminOrders adds the admin's order, finance and metrics routes.
func (a *API) RegisterAdminOrders(rt *httpapi.Router) {
	rt = rt.In("admin")
	p := Prefix
	rt.Handle("GET", p+"/admin/orders", httpapi.Admin, a.adminOrders)
	rt.Handle("GET", p+"/admin/orders/{id}", httpapi.Admin, a.adminOrder)
	rt.Handle("GET", p+"/admin/finance/summary", httpapi.Admin, a.financeSummary)
	rt.Handle("GET", p+"/admin/metrics/overview", httpapi.Admin, a.metricsOverview)
	rt.Handle("GET", p+"/admin/metrics/agent-vs-human", httpapi.Admin, a.agentVsHuman)
}

// adminOrders is GET /admin/orders?status=&buyerId=&sellerId=&search=.
func (a *API) adminOrders(w http.ResponseWriter, r *http.Request) error {
	limit, offset, err := httpapi.Page(r)
	if err != nil {
		return err
	}
	q := r.URL.Query()
	f := orders.AdminOrderFilter{Status: orders.Status(q.Get("status")), BuyerID: q.Get("buyerId"), SellerID: q.Get("sellerId"),
		Search: q.Get("search"), Limit: limit, Offset: offset}
	os, total, err := a.Orders.AdminOrders(r.Context(), actor(r).Actor, f)
	if err != nil {
		return err
	}
	out := make([]api.Order, len(os))
	for i := range os {
		out[i] = *api.AdminOrderOf(&os[i])
	}
	return httpapi.OKMeta(w, r, http.StatusOK, out, adminPageMeta(total, limit, offset, f.CountBound(), q.Get("status"), q.Get("buyerId"), q.Get("sellerId"), q.Get("search")))
}

// adminOrderDetail is GET /admin/orders/{id}.
type adminOrderDetail struct {
	Order         api.Order               `json:"order" doc:"The order, with the seller's side (commission, payout)."`
	Events        []api.TimelineEvent     `json:"events" doc:"The order's timeline, oldest first."`
	Shipment      *adminShipment          `json:"shipment" doc:"How the item travels; null for a local pickup that was never marked collected."`
	Refunds       []api.Refund            `json:"refunds" doc:"Every refund and refund request, oldest first."`
	Disputes      []api.Dispute           `json:"disputes" doc:"Every dispute of the order, oldest first."`
	Authorization adminOrderAuthorization `json:"authorization"`
}

type adminShipment struct {
	FulfillmentType   string            `json:"fulfillmentType" enum:"shipping,local_pickup"`
	Carrier           *string           `json:"carrier" doc:"The carrier of the rate the buyer chose."`
	Service           *string           `json:"service"`
	EstimatedDelivery *string           `json:"estimatedDelivery" format:"date"`
	TrackingCarrier   *string           `json:"trackingCarrier"`
	TrackingNumber    *string           `json:"trackingNumber"`
	ShippedAt         *time.Time        `json:"shippedAt"`
	DeliveredAt       *time.Time        `json:"deliveredAt"`
	ShippingAddress   *api.OrderAddress `json:"shippingAddress" ref:"OrderShippingAddress"`
}

// adminOrderAuthorization is what allowed the purchase, as the order
// records it.
type adminOrderAuthorization struct {
	Channel    string              `json:"channel" enum:"agent,human"`
	AgentKeyID *string             `json:"agentKeyId" doc:"The agent key that bought; null for a human purchase."`
	OwnerID    string              `json:"ownerId" doc:"The account that paid: the buyer (the key's owner for an agent purchase)."`
	Key        *adminOrderKey      `json:"key" doc:"The key as it is now (null for a human purchase): its caps may have changed since."`
	Approval   *adminOrderApproval `json:"approval" doc:"The owner's (or an admin's) decision when the purchase was over the approval threshold; null when none was needed."`
	Record     *api.OrderAuth      `json:"record" doc:"The authorization record written when the listing was reserved (CONTRACT.md section 15), as 'order.authorization' shows it; null for a human purchase and for one that never passed its approval."`
}

type adminOrderKey struct {
	Label            string         `json:"label"`
	KeyPrefix        string         `json:"keyPrefix"`
	Scope            string         `json:"scope" ref:"Scope"`
	Status           string         `json:"status" ref:"KeyStatus"`
	SpendingControls *api.KeyLimits `json:"spendingControls" doc:"The key's own caps today, or null when it has none."`
}

type adminOrderApproval struct {
	ID        string     `json:"id"`
	Status    string     `json:"status" enum:"pending,approved,rejected"`
	Amount    int64      `json:"amount"`
	Reason    *string    `json:"reason"`
	DecidedBy *string    `json:"decidedBy"`
	DecidedAt *time.Time `json:"decidedAt"`
	CreatedAt time.Time  `json:"createdAt"`
}

func (a *API) adminOrder(w http.ResponseWriter, r *http.Request) error {
	p := actor(r)
	d, err := a.Orders.AdminOrder(r.Context(), p.Actor, r.PathValue("id"))
	if err != nil {
		return err
	}
	o := d.Order
	out := adminOrderDetail{Order: *api.AdminOrderOf(o), Events: api.TimelineOf(d.Events),
		Refunds: api.RefundsOf(d.Refunds, o, p.Actor), Disputes: make([]api.Dispute, len(d.Disputes))}
	for i := range d.Disputes {
		out.Disputes[i] = *api.DisputeOf(&d.Disputes[i], a.Photos)
	}
	if o.Fulfillment == orders.FulfillShipping || o.DeliveredAt != nil {
		s := &adminShipment{FulfillmentType: string(o.Fulfillment), Carrier: strOrNil(o.Carrier),
			Service: strOrNil(o.Service), EstimatedDelivery: out.Order.EstimatedDelivery,
			TrackingCarrier: strOrNil(o.ShipmentCarrier), TrackingNumber: strOrNil(o.TrackingNumber),
			ShippedAt: o.ShippedAt, DeliveredAt: o.DeliveredAt, ShippingAddress: out.Order.ShippingAddress}
		out.Shipment = s
	}
	au := adminOrderAuthorization{Channel: string(o.Channel), AgentKeyID: strOrNil(o.BuyerKeyID), OwnerID: o.BuyerID,
		Record: api.OrderAuthOf(o.Authorization)}
	if k := d.Key; k != nil {
		au.Key = &adminOrderKey{Label: k.Label, KeyPrefix: k.Prefix, Scope: string(k.Scope), Status: string(k.Status),
			SpendingControls: api.KeyLimitsOf(k.Limits)}
	}
	if ap := d.Approval; ap != nil {
		au.Approval = &adminOrderApproval{ID: ap.ID, Status: ap.Status, Amount: ap.Amount, Reason: strOrNil(ap.Reason),
			DecidedBy: strOrNil(ap.DecidedBy), DecidedAt: ap.DecidedAt, CreatedAt: ap.CreatedAt}
	}
	out.Authorization = au
	return httpapi.OK(w, r, http.StatusOK, out)
}

// financeSummary is GET /admin/finance/summary (CONTRACT.md section 14).
type financeSummary struct {
	StartDate       string `json:"startDate" format:"date"`
	EndDate         string `json:"endDate" format:"date"`
	Orders          int    `json:"orders" doc:"Orders paid in the range (UTC days, inclusive), whatever happened to them since."`
	GMV             int64  `json:"gmv" doc:"The sum of their item prices, cents; refunds do not change it."`
	ServiceFees     int64  `json:"serviceFees" doc:"The buyers' service fees, cents."`
	Commissions     int64  `json:"commissions" doc:"The sellers' commissions, cents."`
	GrossRevenue    int64  `json:"grossRevenue" doc:"'serviceFees + commissions'."`
	Refunds         int64  `json:"refunds" doc:"All money given back to buyers, cents (refunds booked, taken by the processor or about to be)."`
	NetRevenue      int64  `json:"netRevenue" doc:"'grossRevenue' less the platform's share of refunds (a refund comes out of the seller's payout first, the rest from the platform's fees)."`
	PayoutsReleased int64  `json:"payoutsReleased" doc:"Sellers' net payouts transferred, less what later refunds reversed from them, cents."`
	PayoutsPending  int64  `json:"payoutsPending" doc:"Sellers' net payouts still held: not delivered yet, in the hold period, or frozen by a dispute, cents."`
}

func (a *API) financeSummary(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f, err := a.Orders.FinanceSummary(r.Context(), actor(r).Actor, q.Get("startDate"), q.Get("endDate"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, financeSummary{StartDate: f.StartDate, EndDate: f.EndDate, Orders: f.Orders,
		GMV: f.GMV, ServiceFees: f.ServiceFees, Commissions: f.Commissions, GrossRevenue: f.GrossRevenue(),
		Refunds: f.Refunds, NetRevenue: f.NetRevenue(), PayoutsReleased: f.PayoutsReleased, PayoutsPending: f.PayoutsPending})
}

type metricsActivity struct {
	Orders      int   `json:"orders" doc:"Orders paid in the window."`
	GMV         int64 `json:"gmv" doc:"Their item prices, cents."`
	NewUsers    int   `json:"newUsers" doc:"Accounts created in the window."`
	NewListings int   `json:"newListings" doc:"Listings created in the window."`
	AgentOrders int   `json:"agentOrders" doc:"Orders paid in the window that an agent key bought."`
}

type metricsActionItems struct {
	HeldListings     int `json:"heldListings" doc:"Listings held for review."`
	OpenDisputes     int `json:"openDisputes" doc:"Disputes not resolved (open or answered by the seller)."`
	PendingApprovals int `json:"pendingApprovals" doc:"Purchase approvals waiting for a decision."`
	PendingRefunds   int `json:"pendingRefunds" doc:"Refund requests waiting for the seller, and refunds the processor has not taken yet."`
}

type metricsOverview struct {
	Today       metricsActivity    `json:"today" doc:"Since 00:00 UTC today."`
	Week        metricsActivity    `json:"week" doc:"Since Monday 00:00 UTC (this ISO week)."`
	AllTime     metricsActivity    `json:"allTime"`
	ActionItems metricsActionItems `json:"actionItems"`
}

func toActivity(a orders.Activity) metricsActivity {
	return metricsActivity{Orders: a.Orders, GMV: a.GMV, NewUsers: a.NewUsers, NewListings: a.NewListings,
		AgentOrders: a.AgentOrders}
}

func (a *API) metricsOverview(w http.ResponseWriter, r *http.Request) error {
	o, err := a.Orders.MetricsOverview(r.Context(), actor(r).Actor)
	if err != nil {
		return err
	}
	ai := o.Actions
	return httpapi.OK(w, r, http.StatusOK, metricsOverview{Today: toActivity(o.Today), Week: toActivity(o.Week),
		AllTime: toActivity(o.AllTime), ActionItems: metricsActionItems{HeldListings: ai.HeldListings,
			OpenDisputes: ai.OpenDisputes, PendingApprovals: ai.PendingApprovals, PendingRefunds: ai.PendingRefunds}})
}

type channelFigures struct {
	Orders int   `json:"orders" doc:"Orders paid in the range."`
	GMV    int64 `json:"gmv" doc:"Their item prices, cents."`
}

type agentVsHuman struct {
	Agent channelFigures `json:"agent" doc:"Bought off-session by an agent key."`
	Human channelFigures `json:"human" doc:"Bought by a person."`
}

func (a *API) agentVsHuman(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ag, hu, err := a.Orders.AgentVsHuman(r.Context(), actor(r).Actor, q.Get("startDate"), q.Get("endDate"))
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, agentVsHuman{Agent: channelFigures{Orders: ag.Orders, GMV: ag.GMV},
		Human: channelFigures{Orders: hu.Orders, GMV: hu.GMV}})
}

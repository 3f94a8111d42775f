package apiv1

import (
	"net/http"
	"time"

	"marketplace/internal/activity"
	"marketplace/internal/api"
	"marketplace/internal/events"
	"marketplace/internal/httpapi"
)

// RegisterActivity adds GET /auth/me/activity (CONTRACT.md section 12).
func (a *API) RegisterActivity(rt *httpapi.Router) {
	rt = rt.In("activity")
	rt.Handle("GET", Prefix+"/auth/me/activity", httpapi.Bearer, a.myActivity)
}

// pendingAction is something waiting for the caller.
type pendingAction struct {
	Type    string     `json:"type" enum:"ship,mark_pickup_ready,answer_refund_request,respond_to_dispute,respond_to_offer,approve_purchase" doc:"What to do: 'ship' or 'mark_pickup_ready' a paid order (seller), 'answer_refund_request' and 'respond_to_dispute' (seller), 'respond_to_offer' (the party the offer awaits), 'approve_purchase' (the owner of the agent key that bought)."`
	OrderID *string    `json:"orderId,omitempty" doc:"The order, for every type but 'respond_to_offer'."`
	OfferID *string    `json:"offerId,omitempty" doc:"The offer, for 'respond_to_offer'."`
	DueAt   *time.Time `json:"dueAt" doc:"The deadline where there is one (an offer's expiry), else null."`
}

// activitySummary is the caller's activity.
type activitySummary struct {
	UnreadMessages int             `json:"unreadMessages" minimum:"0" doc:"Unread messages over all the caller's threads."`
	PendingActions []pendingAction `json:"pendingActions"`
	Recent         []api.FeedEvent `json:"recent" doc:"The caller's latest 20 feed events, newest first."`
}

// activityOut is activitySummary as written (events in their public form).
type activityOut struct {
	UnreadMessages int              `json:"unreadMessages"`
	PendingActions []pendingAction  `json:"pendingActions"`
	Recent         []map[string]any `json:"recent"`
}

func toPendingActions(as []activity.Action) []pendingAction {
	out := make([]pendingAction, len(as))
	for i, x := range as {
		out[i] = pendingAction{Type: x.Type, OrderID: strOrNil(x.OrderID), OfferID: strOrNil(x.OfferID), DueAt: x.DueAt}
	}
	return out
}

// myActivity is GET /auth/me/activity.
func (a *API) myActivity(w http.ResponseWriter, r *http.Request) error {
	sum, err := a.Activity.Of(r.Context(), actor(r).User.ID)
	if err != nil {
		return err
	}
	out := activityOut{UnreadMessages: sum.UnreadMessages, PendingActions: toPendingActions(sum.PendingActions),
		Recent: make([]map[string]any, len(sum.Recent))}
	for i := range sum.Recent {
		out.Recent[i] = events.Payload(&sum.Recent[i], false)
	}
	return httpapi.OK(w, r, http.StatusOK, out)
}

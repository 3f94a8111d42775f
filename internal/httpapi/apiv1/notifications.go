package apiv1

import (
	"bytes"
	"encoding/json"
	"net/http"

	"marketplace/internal/events"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/notify"
)

// RegisterNotifications adds the notification preference routes
// (CONTRACT.md section 12).
func (a *API) RegisterNotifications(rt *httpapi.Router) {
	rt = rt.In("notifications")
	rt.Handle("GET", Prefix+"/auth/me/notification-prefs", httpapi.Bearer, a.getNotificationPrefs)
	rt.Handle("PUT", Prefix+"/auth/me/notification-prefs", httpapi.Bearer, a.putNotificationPrefs)
}

// channelSwitches are one category's channels on the wire.
type channelSwitches struct {
	Email   bool `json:"email" required:"true" doc:"E-mails of this category are sent."`
	Webhook bool `json:"webhook" required:"true" doc:"Events of this category are delivered to the webhooks."`
}

type prefsCategories struct {
	Orders   channelSwitches `json:"orders" required:"true" doc:"order.*, payment.released and refund.issued."`
	Offers   channelSwitches `json:"offers" required:"true" doc:"offer.*."`
	Messages channelSwitches `json:"messages" required:"true" doc:"message.received."`
	Listings channelSwitches `json:"listings" required:"true" doc:"listing.* (to the seller, and to watchers)."`
	Account  channelSwitches `json:"account" required:"true" doc:"approval.required and agent_key.frozen."`
}

// notificationPrefs are a user's preferences, whole.
type notificationPrefs struct {
	Categories prefsCategories `json:"categories" required:"true"`
}

func toNotificationPrefs(p events.Prefs) notificationPrefs {
	sw := func(c string) channelSwitches {
		s, ok := p[c]
		if !ok {
			return channelSwitches{Email: true, Webhook: true}
		}
		return channelSwitches{Email: s.Email, Webhook: s.Webhook}
	}
	return notificationPrefs{Categories: prefsCategories{Orders: sw(events.CategoryOrders), Offers: sw(events.CategoryOffers),
		Messages: sw(events.CategoryMessages), Listings: sw(events.CategoryListings), Account: sw(events.CategoryAccount)}}
}

// The PUT body as published: every category and channel optional.
type (
	channelSwitchesInput struct {
		Email   *bool `json:"email" nullable:"false"`
		Webhook *bool `json:"webhook" nullable:"false"`
	}
	prefsCategoriesInput struct {
		Orders   *channelSwitchesInput `json:"orders" nullable:"false"`
		Offers   *channelSwitchesInput `json:"offers" nullable:"false"`
		Messages *channelSwitchesInput `json:"messages" nullable:"false"`
		Listings *channelSwitchesInput `json:"listings" nullable:"false"`
		Account  *channelSwitchesInput `json:"account" nullable:"false"`
	}
	notificationPrefsBody struct {
		Categories *prefsCategoriesInput `json:"categories" required:"true" nullable:"false" doc:"The categories to change, each with the channels to change; what is left out keeps its value."`
	}
)

// getNotificationPrefs is GET /auth/me/notification-prefs.
func (a *API) getNotificationPrefs(w http.ResponseWriter, r *http.Request) error {
	p, err := a.Notify.Prefs(r.Context(), actor(r).User.ID)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toNotificationPrefs(p))
}

// putNotificationPrefs is PUT /auth/me/notification-prefs: a merge, so a
// PUT of one category (or one channel) leaves the rest as it was.
func (a *API) putNotificationPrefs(w http.ResponseWriter, r *http.Request) error {
	var b struct {
		Categories json.RawMessage `json:"categories"`
	}
	if err := httpapi.Decode(r, &b); err != nil {
		return err
	}
	change, err := prefsChange(b.Categories)
	if err != nil {
		return err
	}
	p, err := a.Notify.UpdatePrefs(r.Context(), actor(r).User.ID, change)
	if err != nil {
		return err
	}
	return httpapi.OK(w, r, http.StatusOK, toNotificationPrefs(p))
}

// prefsChange reads categories: an object of objects of booleans, each
// wrong shape a VALIDATION_ERROR naming its field. Names are checked by
// notify.UpdatePrefs.
func prefsChange(raw json.RawMessage) (notify.PrefsChange, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, market.Invalid(market.FieldError{Field: "categories", Message: "is required: an object of categories"})
	}
	var cats map[string]json.RawMessage
	if err := json.Unmarshal(raw, &cats); err != nil {
		return nil, market.Invalid(market.FieldError{Field: "categories", Message: "must be an object of categories"})
	}
	var c market.Check
	change := notify.PrefsChange{}
	for name, v := range cats {
		var chans map[string]json.RawMessage
		if err := json.Unmarshal(v, &chans); err != nil || chans == nil {
			c.Add("categories."+name, "must be an object {email, webhook} of booleans")
			continue
		}
		change[name] = map[string]bool{}
		for ch, x := range chans {
			var on bool
			if err := json.Unmarshal(x, &on); err != nil || bytes.Equal(bytes.TrimSpace(x), []byte("null")) {
				c.Add("categories."+name+"."+ch, "must be true or false")
				continue
			}
			change[name][ch] = on
		}
	}
	if err := c.Err(); err != nil {
		return nil, err
	}
	return change, nil
}

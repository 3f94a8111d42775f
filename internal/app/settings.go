package app

import (
	"context"
	"time"

	"marketplace/internal/listings"
	"marketplace/internal/offers"
	"marketplace/internal/orders"
	"marketplace/internal/settings"
)

// The areas read the live settings through interfaces of their own, in
// their own types (orders.Settings, offers.Settings, listings.Settings);
// these adapt package settings to them, so no area knows the settings'
// keys or their store.

// orderSettings is orders.Settings.
type orderSettings struct{ s *settings.Service }

var _ orders.Settings = orderSettings{}

func (o orderSettings) FeeRates(ctx context.Context) (orders.FeeRates, error) {
	v, err := o.s.Ints(ctx, settings.BuyerFeeRateBps, settings.BuyerFeeMinimum, settings.SellerFeeRateBps)
	if err != nil {
		return orders.FeeRates{}, err
	}
	return orders.FeeRates{BuyerBps: v[0], BuyerMin: v[1], SellerBps: v[2]}, nil
}

// PurchaseRules reads the rates and the velocity rule with one read of the
// settings (one version check per purchase).
func (o orderSettings) PurchaseRules(ctx context.Context) (orders.PurchaseRules, error) {
	v, err := o.s.Ints(ctx, settings.BuyerFeeRateBps, settings.BuyerFeeMinimum, settings.SellerFeeRateBps,
		settings.MaxPurchasesPerHour)
	if err != nil {
		return orders.PurchaseRules{}, err
	}
	return orders.PurchaseRules{Fees: orders.FeeRates{BuyerBps: v[0], BuyerMin: v[1], SellerBps: v[2]},
		MaxPurchasesPerHour: v[3]}, nil
}

func (o orderSettings) PayoutHold(ctx context.Context) (time.Duration, error) {
	hours, err := o.s.Int(ctx, settings.PayoutHoldHours)
	return time.Duration(hours) * time.Hour, err
}

// offerSettings is offers.Settings.
type offerSettings struct{ s *settings.Service }

var _ offers.Settings = offerSettings{}

func (o offerSettings) MaxRounds(ctx context.Context) (int, error) {
	n, err := o.s.Int(ctx, settings.OfferMaxRounds)
	return int(n), err
}

// listingSettings is listings.Settings.
type listingSettings struct{ s *settings.Service }

var _ listings.Settings = listingSettings{}

func (l listingSettings) HoldNewSellers(ctx context.Context) (bool, error) {
	return l.s.Bool(ctx, settings.HoldNewSellers)
}

func (l listingSettings) RestrictedBrands(ctx context.Context) ([]string, error) {
	return l.s.Strings(ctx, settings.RestrictedBrands)
}

func (l listingSettings) SuspendOnCounterfeit(ctx context.Context) (bool, error) {
	return l.s.Bool(ctx, settings.SuspendOnCounterfeit)
}

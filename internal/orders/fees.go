package orders

import "context"

// Fees are an order's money figures in cents (CONTRACT.md section 3).
// TotalCharged = ItemPrice + ShippingCost + ServiceFee, always; Commission is
// what the seller gives up and is not part of the buyer's charge.
type Fees struct {
	ItemPrice    int64
	ShippingCost int64
	ServiceFee   int64
	TotalCharged int64
	Commission   int64
}

// FeeRates are the admin-configured rates, in basis points, and the minimum
// buyer fee in cents.
type FeeRates struct {
	BuyerBps  int64
	BuyerMin  int64
	SellerBps int64
}

// DefaultFeeRates are the rates of the spec: 3.5% with a 99-cent minimum,
// and 3% commission.
var DefaultFeeRates = FeeRates{BuyerBps: 350, BuyerMin: 99, SellerBps: 300}

// bps is round-half-up of amount x rate / 10000, on integers. Amounts and
// rates are never negative here.
func bps(amount, rate int64) int64 {
	return (amount*rate + 5000) / 10000
}

// Compute is the one fee function: service fee = max(minimum, round(rate x
// (item + shipping))), commission = round(rate x item).
func Compute(r FeeRates, itemPrice, shippingCost int64) Fees {
	fee := bps(itemPrice+shippingCost, r.BuyerBps)
	if fee < r.BuyerMin {
		fee = r.BuyerMin
	}
	return Fees{
		ItemPrice:    itemPrice,
		ShippingCost: shippingCost,
		ServiceFee:   fee,
		TotalCharged: itemPrice + shippingCost + fee,
		Commission:   bps(itemPrice, r.SellerBps),
	}
}

// feeRates reads the rates from the settings at each purchase (a change
// applies to the next purchase without a restart).
func (s *Service) feeRates(ctx context.Context) (FeeRates, error) {
	if s.opts.Settings == nil {
		return DefaultFeeRates, nil
	}
	return s.opts.Settings.FeeRates(ctx)
}

// BuyerTotals returns what a purchase at an item price with a shipping cost
// would charge the buyer in all, at the rates in force now (offers reserve
// it). Read the rates before a transaction opens, as a purchase does.
func (s *Service) BuyerTotals(ctx context.Context) (func(itemPrice, shippingCost int64) int64, error) {
	r, err := s.feeRates(ctx)
	if err != nil {
		return nil, err
	}
	return func(item, ship int64) int64 { return Compute(r, item, ship).TotalCharged }, nil
}

package orders

// DisputeTx is what disputes need from a transaction.
type DisputeTx interface{}

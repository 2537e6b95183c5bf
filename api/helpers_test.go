package api

import "context"

type ctxT = context.Context

func bgCtx() context.Context { return context.Background() }

func cancelCtx() (context.Context, context.CancelFunc) {
	return context.WithCancel(context.Background())
}

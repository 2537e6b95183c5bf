package api

import "context"

type ctxT = context.Context

func bgCtx() context.Context { return context.Background() }

"""EvalService's handlers: datasets (`datasets`), evaluation runs (`runs`), and the
servicer over both (`servicer`)."""

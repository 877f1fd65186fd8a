//! The HTTP layer (axum): routes, OpenAI wire types, errors.

//! The GPU worker thread and its scheduler.

//! Harness for the official a2a-sdk (Python) and @a2a-js/sdk servers (being written).

"""Our choices for what the service's contract does not show.

The contract (``content-service-api.md``) leaves some wire facts open: the rename method, a few
success statuses, several error codes. design.md §4 settles them; this module is the only place
the client encodes them, so that if the real service answers differently there is one file to
change. The sandbox makes the same choices on its own side (it does not import this module).

Policy choices that are ours but not wire facts live next to the code they steer: retry timing in
``retry.py``, token lifetimes shorter than the refresh margin in ``auth.py``, the thread-name
control-character rule in ``checks.py``.
"""

from __future__ import annotations

from typing import Final

# --- Rename a thread: method and path not shown. -------------------------------------------------
RENAME_THREAD_METHOD: Final = "PATCH"
RENAME_THREAD_PATH: Final = "/v1/threads/{thread_id}"

# --- POST /v1/suggestions (save a draft): response and status not shown. -------------------------
# 201 with the saved Suggestion. The draft's thread is found by listing threads, not read here.
CREATE_DRAFT_STATUS: Final = 201

# --- POST /v1/assets/urls: success and failure statuses not shown. -------------------------------
MINT_ASSET_URLS_STATUS: Final = 200
# Unknown refs and refs owned by another tenant: 404 with this code. Malformed refs: 422
# (``validation_error``), which the client never sends because it checks refs first.
ASSET_NOT_FOUND_STATUS: Final = 404
ASSET_NOT_FOUND_CODE: Final = "asset_not_found"
MALFORMED_ASSET_REF_STATUS: Final = 422

# --- Authentication failures on /v1: code not shown. ---------------------------------------------
UNAUTHORIZED_CODE: Final = "unauthorized"

# --- A machine token on a user-only operation (run creation, rename): status and code not shown.
USER_TOKEN_REQUIRED_STATUS: Final = 403
USER_TOKEN_REQUIRED_CODE: Final = "user_token_required"

# --- 404s: code not shown. -----------------------------------------------------------------------
NOT_FOUND_CODE: Final = "not_found"

# --- The caller profile (``Me``): path and field names not shown. --------------------------------
# The app works without it, so the client returns the raw object, or None when the path is absent.
ME_PATH: Final = "/v1/me"

# --- Collections: only the inspiration response is shown with its item array named. -------------
# Every collection is read the same way: items in ``data``, paging in ``meta``.
COLLECTION_ITEMS_FIELD: Final = "data"

# --- GET /v1/suggestion-sets: query parameters not shown. ----------------------------------------
# Only the common paging parameters (``cursor``, ``limit``) are sent.

# --- Thread fields: the segment field's name is shown only as the list filter ``segment_id``. ----
# The client reads ``segment_id`` and ``use_case_id`` from a thread and tolerates their absence
# (``models.Thread``).

# --- Error statuses of the suggestion-set and suggestion reads: not shown. -----------------------
# Read like every other single read: 404 ``not_found`` for unknown or invisible ids.

# --- Creator fields of sets and threads: names not shown. ----------------------------------------
# Not read; the list filter ``created_by`` is sent where the contract names it.

"""Action, block and callback ids shared by the builders and the listeners that match them."""

# modals (callback_id)
VIEW_CONNECT = "connect"
VIEW_BRIEF = "brief"

# inputs (block_id / action_id)
INPUT_TOKEN = "token"
INPUT_SEGMENT = "segment"
INPUT_USE_CASE = "use_case"
INPUT_BRIEF = "brief_text"
INPUT_VARIANTS = "variants"

# buttons (action_id)
ACTION_CONNECT = "link.connect"
ACTION_RESEND = "request.resend"
ACTION_RETRY = "request.retry"
ACTION_EDIT_RESEND = "request.edit_resend"
ACTION_RESEND_WITHOUT_IMAGE = "request.resend_without_image"
ACTION_REFRESH_PREVIEW = "variant.refresh_preview"
ACTION_CHANGE_DEFAULTS = "brief.change_defaults"
ACTION_REFINE_HEAD = "request.refine_head"
ACTION_CHECK_AGAIN = "request.check_again"

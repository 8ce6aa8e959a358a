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

# the composer (the app's Messages tab) and the message shortcut (callback_id)
SHORTCUT_BRIEF = "turn_into_brief"
BLOCK_COMPOSER_CHOICES = "composer_choices"
ACTION_COMPOSER_SEGMENT = "composer.segment"
ACTION_COMPOSER_USE_CASE = "composer.use_case"
ACTION_COMPOSER_VARIANTS = "composer.variants"

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
# feedback on variants and turns, and the gallery's cards
ACTION_FEEDBACK = "variant.feedback"
ACTION_COPY_TEXT = "variant.copy_text"
VIEW_FEEDBACK_REASON = "feedback_reason"
INPUT_FEEDBACK_REASON = "feedback_reason"
ACTION_SHOW_INSTRUCTION = "request.show_instruction"

# inspiration and digests
VIEW_DIGEST_ADD = "digest_add"
INPUT_DIGEST_SEGMENT = "digest_segment"
INPUT_DIGEST_USE_CASE = "digest_use_case"
INPUT_DIGEST_TIME = "digest_time"
INPUT_DIGEST_TZ = "digest_tz"
INPUT_DIGEST_WEEKDAYS = "digest_weekdays"
INPUT_DIGEST_QUIET = "digest_quiet"
ACTION_INSPIRE_PICK = "inspire.pick"  # picker buttons carry a ".N" suffix (unique per block)
ACTION_INSPIRE_SHARE = "inspire.share"
ACTION_INSPIRE_REFINE = "inspire.refine"
ACTION_INSPIRE_GENERATE = "inspire.generate"
ACTION_DIGEST_PAUSE = "digest.pause"
ACTION_DIGEST_RESUME = "digest.resume"
ACTION_DIGEST_PREVIEW = "digest.preview"
ACTION_DIGEST_REMOVE = "digest.remove"

# refining in threads, drafts, lists and App Home
VIEW_REFINE = "refine"
VIEW_RENAME = "rename_thread"
VIEW_DRAFT = "draft"
VIEW_HISTORY = "history"
VIEW_INSTRUCTION = "instruction"
INPUT_INSTRUCTION = "instruction"
INPUT_IMAGE_MODE = "image_mode"
INPUT_THREAD_NAME = "thread_name"
INPUT_DRAFT_SUBJECT = "draft_subject"
INPUT_DRAFT_BODY = "draft_body"
ACTION_REFINE_OPEN = "thread.refine"
ACTION_CHOOSE_VARIANT = "thread.choose"  # carries a ".N" suffix (unique per block)
ACTION_RENAME_OPEN = "thread.rename"
ACTION_REFRESH_TURN = "thread.refresh_turn_preview"
ACTION_LIST_MORE = "lists.more"
ACTION_THREAD_HISTORY = "lists.thread_history"
ACTION_RUN_HISTORY = "lists.run_history"
ACTION_HOME_DISCONNECT = "home.disconnect"
ACTION_HOME_REFRESH = "home.refresh"

# workspace settings for admins (multi-workspace installs)
VIEW_SERVICE_CREDENTIALS = "service_credentials"
INPUT_SERVICE_URL = "service_url"
INPUT_SERVICE_CLIENT_ID = "service_client_id"
INPUT_SERVICE_CLIENT_SECRET = "service_client_secret"
ACTION_SERVICE_CREDENTIALS = "admin.service_credentials"
# the language of channel posts (every install)
ACTION_WORKSPACE_LANGUAGE = "admin.workspace_language"

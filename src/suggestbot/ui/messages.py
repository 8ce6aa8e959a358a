"""Every sentence a Slack user reads, in English and German.

Handlers and block builders never hold user-facing text themselves; they ask :func:`t` for it
by key, with the user's locale from ``users.info``. A missing German text falls back to English,
and a missing key is a programming error (KeyError), caught by the tests that render every key.
"""

from __future__ import annotations

import re
from typing import Any

SUPPORTED = ("en", "de")

_EN: dict[str, str] = {
    # help
    "help.title": "suggestbot — content suggestions in Slack",
    "help.body": (
        "*Briefs*\n"
        "`/suggest brief [text]` — send a brief; 1–3 variants arrive in a thread.\n"
        "Briefs typed in the modal hold up to 3,000 characters; for longer briefs (up to 4,000) "
        "type them after `/suggest brief`.\n"
        "\n"
        "*Refining*\n"
        "Reply in a result's thread to refine it (`2: …` picks variant 2), or press *Refine…*.\n"
        "`/suggest draft` — save an email you wrote; refine it in its thread.\n"
        "`/suggest threads` / `/suggest runs` — your recent threads and runs, with history.\n"
        "\n"
        "*Ready-made content*\n"
        "`/suggest inspire [segment] [use case] [--version N] [--refresh]` — the newest "
        "ready-made content, to share to the channel or refine.\n"
        "`/suggest digest add` — post it here on a schedule.   "
        "`/suggest digest list|pause|resume|preview|remove [id]` — manage digests.\n"
        "\n"
        "*Account*\n"
        "`/suggest connect` — link your personal token of the content service.\n"
        "`/suggest disconnect` — unlink it.   `/suggest status` — show your link.\n"
        "`/suggest help` — this help."
    ),
    "help.unknown_subcommand": "I don't know `/suggest {sub}`. Here is what I can do:",
    # linking
    "connect.title": "Connect account",
    "connect.label": "Personal token",
    "connect.hint": "Paste the personal token of your content service account. "
    "It is stored encrypted and never shown again.",
    "connect.submit": "Connect",
    "connect.cancel": "Cancel",
    "connect.done": ":white_check_mark: Your account is connected.",
    "connect.rejected": "The service did not accept this token. Check it and try again.",
    "connect.empty": "Paste your token here.",
    "connect.unreachable": "The service could not be reached to check this token. "
    "Please try again in a minute.",
    "connect.button": "Connect account",
    "connect.checking": ":hourglass_flowing_sand: Checking your token with the service…",
    "connect.held_ready": "Your account is connected. Your brief is kept: press *Resend* to "
    "send it.",
    "modal.close": "Close",
    "error.only_author": "Only <@{user}>, who sent this brief, can do that: runs are created "
    "with the author's own account.",
    "connect.needed": "You need to connect your content service account first. "
    "What you typed is kept: press *Resend* once you are connected.",
    "connect.expired": "The service no longer accepts your token. Connect again with "
    "`/suggest connect`.",
    "connect.expired_kept": "The service no longer accepts your token. Press *Connect account* "
    "to connect again, then *Resend*: what you asked for is kept.",
    "connect.unreadable_kept": "Your saved connection to the content service can no longer be "
    "read here. Press *Connect account* to connect again, then *Resend*: what you asked for is "
    "kept.",
    "disconnect.done": "Your account is disconnected. Your token has been deleted.",
    "disconnect.none": "No account is connected.",
    "status.linked": ":link: Your account is connected (since {since}).",
    "status.expired": ":warning: Your token was rejected by the service on {since}. "
    "Connect again with `/suggest connect`.",
    "status.unreadable": ":warning: Your connection can no longer be used: the app's "
    "encryption keys were changed and your stored token cannot be read. Connect again with "
    "`/suggest connect`; what you asked for is kept.",
    "status.unlinked": "No account is connected. Use `/suggest connect`.",
    "status.workspace_ok": "Workspace: connected to the content service ({mode}).",
    "status.workspace_down": "Workspace: the content service is not reachable right now.",
    "status.mode_embedded": "built-in sandbox",
    "status.mode_service": "content service",
    # brief modal
    "brief.title": "New brief",
    "brief.submit": "Send brief",
    "brief.cancel": "Cancel",
    "brief.segment": "Segment",
    "brief.use_case": "Use case",
    "brief.text": "Brief",
    "brief.text_hint": "Instructions for the generator, not the copy itself. "
    "Up to 3,000 characters here; longer briefs (to 4,000) via `/suggest brief <text>`.",
    "brief.variants": "Variants",
    "brief.returned": "Here is your brief as you typed it, to shorten and send again:",
    "outage.command": "I can't take requests for a moment: my storage cannot be reached. "
    "Nothing was done — please send it again in a minute.",
    "outage.returned": "Here is what you typed, to send again:",
    "brief.long_kept": "Your brief of {count} characters is kept as you typed it and sent "
    "with the choices below.",
    "brief.loading": "Loading segments and use cases…",
    "brief.no_segments": "No segment or use case is set up for content yet. Ask an admin.",
    "brief.input_too_long": "This brief has {count} characters; the service takes at most 4,000.",
    "brief.input_rejected": "The brief is empty. Write what the content should achieve.",
    "brief.input_invalid_encoding": "The brief contains control characters or broken "
    "characters that are not text. Remove them and send again.",
    "input.invalid_encoding": "This contains control characters or broken characters that are "
    "not text. Remove them and send again.",
    "brief.using_defaults": "Sent with the last choices of <@{user}>: *{segment}* · "
    "*{use_case}* · {variants} {variants|variant|variants}.",
    "brief.change": "Change",
    # root message
    "root.queued": ":hourglass_flowing_sand: Brief from <@{user}> is queued.",
    "root.running": ":gear: Generating for <@{user}>… (attempt {attempt})",
    "root.running_again": ":gear: Generating for <@{user}>… (attempt {attempt}: the service "
    "is retrying after an attempt that did not finish; nothing is lost)",
    "root.requeued": ":hourglass_flowing_sand: Generating for <@{user}>: the service is "
    "retrying (attempt {attempt} finished without a result). Nothing is lost.",
    "root.sending": ":outbox_tray: Sending brief from <@{user}>…",
    "root.ready": ":sparkles: The results for <@{user}> are ready: {count} "
    "{count|suggestion|suggestions}. "
    "Reply in this thread to refine.",
    "root.failed": ":x: The brief from <@{user}> failed: {reason}",
    "root.delayed": ":snail: The service is busy. The brief from <@{user}> will be sent "
    "automatically at {when}.",
    "root.waiting_for_user": ":warning: The brief from <@{user}> is waiting until they connect "
    "their content service account. Nothing is lost.",
    "root.brief_quote": "> {brief}",
    "root.context": "{segment} · {use_case} · {variants} {variants|variant|variants}",
    # the status line under a thread while a run works (Slack puts the app's name first)
    "status.sending": "is sending the request…",
    "status.delayed": "is waiting: the service is busy, it sends again shortly…",
    "status.queued": "is queued at the service…",
    "status.requeued": "is retrying (attempt {attempt})…",
    "status.running": "is writing (attempt {attempt})…",
    "status.posting": "is posting the results…",
    "status.loading_brief": "Reading your brief…\nFinding the right tone for the segment…\n"
    "Drafting the variants…\nChoosing images…",
    "status.loading_refine": "Reading your instruction…\nReworking the suggestion…\n"
    "Checking the new version…",
    # the composer (the app's Messages tab) and the message shortcut
    "composer.prompts_title": "Start a brief from a template:",
    "composer.prompt_title": "{use_case} for {segment}",
    "composer.idea_1": "A short, friendly message announcing our newest offer.",
    "composer.idea_2": "Invite them to an event next month, with one clear call to action.",
    "composer.idea_3": "Thank them for being with us and suggest what to try next.",
    "composer.idea_4": "Three reasons to choose us this season, upbeat and brief.",
    "composer.variant_option": "{count} {count|variant|variants}",
    "composer.choices_hint": "Pick another segment, use case or number of variants to send "
    "this brief again with it; your pick is kept for your next briefs.",
    "composer.choice_kept": "Sending your brief again to {segment} · {use_case} with "
    "{variants} {variants|variant|variants}; your next briefs use these too.",
    "composer.kept": "The content service could not be reached to pick a segment and use "
    "case. Your brief is kept: press *Resend* to send it.",
    "composer.not_yours": "Only the author of this brief can send it again with other choices.",
    "shortcut.from_message": "From <{link}|a message>",
    # variants
    "variant.header": "Variant {n} of {total}",
    "variant.kind.email": "Email",
    "variant.kind.social_single_image": "Social post",
    "variant.subject": "*Subject:* {subject}",
    "variant.rationale": "_Why:_ {rationale}",
    "variant.refresh": "Refresh preview",
    "variant.preview_expired": "Image preview links expire after 15 minutes: press "
    "*Refresh preview* to see the image again.",
    "variant.skipped": "{count} {count|suggestion|suggestions} of a kind this app does not know "
    "yet {count|was|were} skipped.",
    "variant.continued": "(continued)",
    # feedback on variants and turns
    "feedback.good": "Good suggestion",
    "feedback.bad": "Not helpful",
    "feedback.good_label": "Mark this suggestion as good",
    "feedback.bad_label": "Mark this suggestion as not helpful",
    "feedback.reason_title": "What was wrong?",
    "feedback.reason_label": "Tell us why (optional)",
    "feedback.reason_placeholder": "For example: too long, wrong tone, off-brand image",
    "feedback.reason_submit": "Send",
    "feedback.reason_skip": "Skip",
    "feedback.reason_intro": "Thanks — your vote is counted. A few words on what did not work "
    "help the next briefs.",
    # the gallery of several variants
    "gallery.title": "Variant {n} · {kind}",
    "gallery.copy": "Copy text",
    "gallery.fallback": "{count} variants are ready; each is in full in this thread.",
    "gallery.copy_intro": "*{title}* as plain text, ready to copy:",
    "gallery.copy_gone": "This variant is no longer known to me.",
    # the Workflow Builder step "Generate content suggestions"
    "step.failed": "The content suggestions could not be made: {reason}",
    "step.not_connected": "The person this step runs for (<@{user}>) has not connected a "
    "content service account yet: they can type /suggest connect in Slack, then run the "
    "workflow again.",
    "step.no_brief": "The brief is empty: give the step a brief to send.",
    "step.bad_brief": "The brief cannot be sent as it is: {reason}",
    "step.unknown_segment": "There is no segment called “{given}”. Known segments: {known}.",
    "step.unknown_use_case": "There is no use case called “{given}”. Known use cases: {known}.",
    "step.bad_variant_count": "The number of variants must be from 1 to {most}; the step got "
    "{given}.",
    "step.no_variant": "The run finished without a variant this app can show.",
    # failures
    "fail.generation_failed": "the service failed while generating.",
    "fail.generation_timeout": "the service ran out of time. A shorter brief or fewer variants "
    "may help.",
    "fail.steering_disabled": "generation from your own instructions is switched off for this "
    "workspace. Ask your service admin to switch it on; retrying will not help.",
    "fail.output_rejected": "the generated content failed the service's safety check. Reword the "
    "brief and send it again.",
    "fail.invalid_parent": "the suggestion being refined is no longer the newest in its thread.",
    "fail.image_not_applicable": "this content has no image, so the image cannot be regenerated.",
    "fail.unknown": "the service reported a failure it did not explain. Press *Retry* to send "
    "it again; if it keeps failing, pass the code below to your support team.",
    "fail.support_code": "Code for support: `{code}`",
    "fail.brief.input_too_long": "the brief is longer than the 4,000 characters the service "
    "takes. Press *Edit and resend* to shorten it.",
    "fail.brief.input_rejected": "the service turned the brief down: it is empty, or the "
    "service's safety check refused it. Press *Edit and resend* to reword it.",
    "fail.brief.input_invalid_encoding": "the brief contains characters that are not text. "
    "Press *Edit and resend* to remove them.",
    "fail.brief.validation_error": "the service could not accept the brief as it was sent. "
    "Press *Edit and resend* to check your choices and send it again.",
    "fail.instruction.input_too_long": "your instruction is too long for the service. Reply "
    "in the thread with a shorter one.",
    "fail.instruction.input_rejected": "the service turned your instruction down. Reply in "
    "the thread with a reworded one.",
    "fail.instruction.input_invalid_encoding": "your instruction contains characters that are "
    "not text. Reply in the thread again without them.",
    "fail.instruction.validation_error": "your instruction was empty. Reply in the thread with "
    "what should change, e.g. `shorter and friendlier`.",
    "fail.service_unavailable": "the service could not be reached. Press *Retry* to send again.",
    "fail.uncertain": "the connection broke while sending; the brief may or may not have "
    "arrived. Press *Retry* to send it again if no result appears.",
    "fail.internal": "something went wrong on our side (reference `{ref}`). Press *Retry*.",
    "fail.watch_expired": "the run has not finished after a long wait. It may still finish: "
    "press *Check again*.",
    "button.check_again": "Check again",
    "button.retry": "Retry",
    "button.edit_resend": "Edit and resend",
    "button.resend": "Resend",
    "button.resend_without_image": "Resend without image",
    "button.refine_head": "Refine newest",
    # slack delivery problems
    "slack.not_in_channel": "I'm not a member of <#{channel}>, so I can't post there. "
    "Invite me with `/invite @suggestbot`. Meanwhile your results come here by direct message.",
    "slack.dm_fallback": "Results for your brief from <#{channel}> (I'm not in that channel):",
    # generic
    "error.generic": "Sorry, something went wrong (reference `{ref}`). Please try again.",
    "error.unreadable_command": "Slack sent this command without all of its details, so I "
    "did nothing. Please send it again.",
    "gone.message": "That message no longer exists (it was deleted), so there is nothing "
    "to change in it.",
    "gone.thread": "That thread no longer exists (its first message was deleted). Start a new "
    "one with `/suggest brief`.",
    "gone.view": "That window was closed before I could fill it in. Open it again if you "
    "still need it.",
    "gone.trigger": "That took too long to open. Please press the button (or send the "
    "command) again.",
    "modal.press_again": "The app restarted before it could open the form you asked for. "
    "Please press the button again.",
    "error.not_found": "The service does not know that item, or you may not see it.",
    "error.rate_limited": "The service is busy; try again in {seconds} seconds.",
    # ready-made content (/suggest inspire) and digests (/suggest digest)
    "inspire.bad_option": "I don't know the option `{option}`. Use `/suggest inspire [segment] "
    "[use case] [--version N] [--refresh]`.",
    "inspire.unknown": "No segment or use case matches `{text}` (segments not set up for "
    "content are not listed).",
    "inspire.pick_segment": "Which segment do you want ready-made content for?",
    "inspire.pick_segment_ambiguous": "`{text}` matches several segments. Which one?",
    "inspire.pick_use_case": "Which use case?",
    "inspire.pick_use_case_ambiguous": "`{text}` matches several use cases. Which one?",
    "inspire.chosen_segment": "Segment: *{name}*",
    "inspire.chosen_use_case": "Use case: *{name}*",
    "inspire.nothing_to_pick": "Nothing to choose from: no segment or use case is set up for "
    "content yet. Ask an admin.",
    "inspire.title_newest": ":bulb: *Ready-made content* for *{segment}* · *{use_case}*: "
    "version {version} (the newest)",
    "inspire.title_version": ":bulb: *Ready-made content* for *{segment}* · *{use_case}*: "
    "version {version}",
    "inspire.older_hint": "Older content: add `--version {previous}` to the command.",
    "inspire.left_out": "{count} more {count|variant|variants} did not fit in this message.",
    "inspire.no_preview": "No image preview right now; the image is shown when the variant is "
    "shared.",
    "inspire.share_button": "Share #{n} to channel",
    "inspire.refine_button": "Refine #{n}…",
    "inspire.empty": "*No ready-made content for {segment} · {use_case} yet.* That can mean:\n"
    "• the workspace's account at the content service is new (ready-made content is "
    "generated overnight);\n"
    "• the segment is not set up for content;\n"
    "• the first generation has not finished yet.\n"
    "Press *Generate now* to ask for it; I'll post it here when it is ready.",
    "inspire.generate_button": "Generate now",
    "inspire.no_such_version": "There is no version {version} of the ready-made content for "
    "*{segment}* · *{use_case}*. The newest is version {newest}.",
    "inspire.show_newest": "Show newest",
    "inspire.locale_mismatch": ":warning: No ready-made content for *{segment}* · *{use_case}* "
    "in `{configured}`: this workspace is set to content in `{configured}`, but the content "
    "service holds its content in `{held}`. An admin needs to set `CONTENT_LOCALE={held}`; "
    "until then this stays empty.",
    "inspire.unavailable": "The content service could not be reached. Please try again in a "
    "minute.",
    "inspire.not_set_up": "The content service does not know *{segment}*, or it is not set up "
    "for content, so nothing can be generated for it. Ask an admin.",
    "inspire.generating": ":hourglass_flowing_sand: Ready-made content for *{segment}* · "
    "*{use_case}* is being generated. I'll post it here when it is ready.",
    "inspire.ready": ":sparkles: The ready-made content you asked for is ready: *{segment}* · "
    "*{use_case}*.",
    "inspire.watch_expired": "The content for *{segment}* · *{use_case}* has not appeared after "
    "a long wait. Try `/suggest inspire` again later.",
    "inspire.offer_gone": "This answer has expired. Run `/suggest inspire` again.",
    "inspire.shared_intro": "Shared by <@{user}> from ready-made content: {segment} · "
    "{use_case}, version {version}",
    "inspire.refine_hint": "Reply in this thread to refine it.",
    "inspire.cannot_post": "I can't post in <#{channel}>. Invite me with `/invite @suggestbot` "
    "and press the button again.",
    "inspire.shared": ":white_check_mark: Shared to <#{channel}>. Reply in its thread to refine "
    "it.",
    "inspire.already_shared": "This variant is already shared to <#{channel}>.",
    "inspire.refine_there": "The variant is in <#{channel}> now: reply in its thread with what "
    "to change, and it is refined there.",
    "inspire.open": "Open",
    "digest.header": "Inspiration: {segment} · {use_case}",
    "digest.version": "Newest ready-made content, version {version}",
    "digest.refine_hint": "Reply in this thread to refine a variant: start with its number, "
    "for example `2: shorter`.",
    "digest.late": ":clock3: Posted late: this digest was due at {time} ({tz}) while the app "
    "was unavailable.",
    "digest.unchanged": ":zzz: No new inspiration for *{segment}* · *{use_case}* today (still "
    "version {version}).",
    "digest.nothing_yet": ":zzz: No ready-made content for *{segment}* · *{use_case}* yet.",
    "digest.usage": "I don't know `/suggest digest {sub}`. Use `add`, `list`, `pause`, "
    "`resume`, `preview` or `remove` (with the digest's id).",
    "digest.invite_first": "I'm not a member of <#{channel}>, so I can't post a digest there. "
    "Invite me with `/invite @suggestbot` first.",
    "digest.modal_title": "Daily digest",
    "digest.submit": "Add digest",
    "digest.cancel": "Cancel",
    "digest.time": "Time",
    "digest.tz": "Time zone",
    "digest.tz_hint": "An IANA time zone such as Europe/Berlin or America/New_York. Yours is "
    "filled in.",
    "digest.weekdays": "Weekdays",
    "digest.when_unchanged": "When nothing is new",
    "digest.when_unchanged_line": "Post a short line",
    "digest.when_unchanged_nothing": "Post nothing",
    "digest.weekday.0": "Mon",
    "digest.weekday.1": "Tue",
    "digest.weekday.2": "Wed",
    "digest.weekday.3": "Thu",
    "digest.weekday.4": "Fri",
    "digest.weekday.5": "Sat",
    "digest.weekday.6": "Sun",
    "digest.every_day": "every day",
    "digest.bad_time": "Choose a time such as 09:00.",
    "digest.bad_tz": "“{tz}” is not a time zone I know. Use a name like Europe/Berlin.",
    "digest.no_weekdays": "Choose at least one day.",
    "digest.choose": "Choose one.",
    "digest.added": ":white_check_mark: Digest `{id}` added: *{segment}* · *{use_case}* in "
    "<#{channel}> at {time} ({tz}), {days}. Next: {next}.",
    "digest.list_title": "*Digests in <#{channel}>* (and yours elsewhere)",
    "digest.none": "No digests yet. Add one with `/suggest digest add`.",
    "digest.line": "`{id}` · *{segment}* · *{use_case}* in <#{channel}> at {time} ({tz}), {days}",
    "digest.state_active": "Active · next {next}",
    "digest.state_paused": "Paused",
    "digest.state_paused_because": "Paused: {reason}",
    "digest.last_delivery": "Last delivery: {at}",
    "digest.never": "never",
    "digest.last_error": "Last problem {at}: {error}",
    "digest.last_error_same": "Last problem {at}: the one above",
    "digest.problem.not_in_channel": "I was removed from <#{channel}> — invite me with "
    "`/invite @suggestbot`, then press *Resume*.",
    "digest.problem.is_archived": "<#{channel}> was archived — unarchive it or pick another "
    "channel, then press *Resume*.",
    "digest.problem.channel_not_found": "<#{channel}> no longer exists, or I can no longer see "
    "it — invite me with `/invite @suggestbot`, then press *Resume*.",
    "digest.problem.restricted_action": "I may not post in <#{channel}> — ask a workspace admin "
    "to allow it, then press *Resume*.",
    "digest.problem.service_unavailable": "the content service could not be reached; the next "
    "delivery tries again.",
    "digest.problem.content_locale_mismatch": "the content service holds its ready-made "
    "content in another language than this workspace is set to; an admin needs to change "
    "`CONTENT_LOCALE`.",
    "digest.problem.other": "Slack refused the post in <#{channel}>. Press *Resume* to try again.",
    "digest.problem.token_revoked": "Slack took away my access to this workspace — an admin "
    "needs to reinstall suggestbot, then press *Resume*.",
    "digest.problem.app_uninstalled": "suggestbot was removed from this workspace — an admin "
    "needs to reinstall it, then press *Resume*.",
    "digest.no_error": "no errors",
    "digest.pause_button": "Pause",
    "digest.resume_button": "Resume",
    "digest.preview_button": "Preview",
    "digest.remove_button": "Remove",
    "digest.more": "{count} more not shown.",
    "digest.not_found": "No single digest matches `{ref}`.",
    "digest.paused": ":double_vertical_bar: Digest `{id}` in <#{channel}> is paused. Resume it "
    "with `/suggest digest resume {id}`.",
    "digest.resumed": ":arrow_forward: Digest `{id}` in <#{channel}> is active again.",
    "digest.removed": ":wastebasket: Digest `{id}` (*{segment}* · *{use_case}*) in "
    "<#{channel}> is removed.",
    "digest.paused_dm": ":warning: Your digest `{id}` (*{segment}* · *{use_case}*) in "
    "<#{channel}> is paused: {reason}. Once that is fixed, run `/suggest digest resume {id}`.",
    "digest.reason.not_in_channel": "I was removed from the channel (invite me back with "
    "`/invite @suggestbot`)",
    "digest.reason.is_archived": "the channel was archived",
    "digest.reason.channel_not_found": "the channel no longer exists, or I can no longer see it",
    "digest.reason.restricted_action": "posting in the channel is restricted",
    "digest.reason.other": "Slack refused the post",
    # refining in threads, drafts, lists and App Home
    "refine.button": "Refine…",
    "refine.title": "Refine suggestion",
    "refine.submit": "Refine",
    "refine.instruction": "What should change?",
    "refine.instruction_hint": "An instruction for the generator, e.g. “shorter, and mention the "
    "free returns”.",
    "refine.image": "Image",
    "refine.image_reuse": "Keep the image",
    "refine.image_regenerate": "Generate a new image",
    "refine.note_variant": "This refines *variant {n}*; the thread then continues from it.",
    "refine.note_newest": "This refines the newest turn (turn {n}): a thread continues from its "
    "newest turn and does not branch.",
    "refine.empty": "Write what should change, e.g. `2: shorter and friendlier`.",
    "refine.not_ready": "The suggestions of this thread are not ready yet. Reply again once "
    "they are posted.",
    "refine.connect_needed": "To refine, connect your content service account first. Your "
    "reply is kept: press *Resend* once you are connected.",
    "refine.held_ready": "Your account is connected. Your reply is kept: press *Resend* to "
    "refine with it.",
    "refine.files_not_used": "Attached files are not used by the content service: your reply's "
    "text refines the suggestion, the files are left out.",
    "refine.files_without_text": "Attached files are not used by the content service. To "
    "refine, reply in this thread with what should change, e.g. `2: shorter and friendlier`.",
    "refine.invalid_encoding": "Your reply contains control characters or broken characters "
    "that are not text, so nothing was refined. Remove them and reply again.",
    "refine.not_visible": ":lock: You can't see this suggestion in the content service, so you "
    "can't refine it with your account. Ask the person who created it to refine it, or share "
    "it with you in the service.",
    "refine.not_visible_reason": "you can't see the suggestion being refined in the content "
    "service.",
    "choose.question": "This thread has {count} variants. Which one should your reply refine?",
    "choose.variant_line": "*Variant {n}* · {label}",
    "choose.button": "Variant {n}",
    "choose.already": "This thread already continues *variant {n}*: replies refine its newest "
    "turn (threads do not branch). Refine that with your reply?",
    "choose.taken": ":white_check_mark: Refining variant {n} with your reply.",
    "choose.gone": "That reply was already sent, or is no longer kept (unsent replies are kept "
    "for {days} days). Reply in the thread again to refine.",
    "held.gone": "That text is no longer kept (text that could not be sent is kept for {days} "
    "days). Please type it again.",
    "turn.header": "Turn {n} · {kind}",
    "refine.long_reply": "Your reply of {count} characters was sent as it is. The thread quotes "
    "its beginning: press *Show whole instruction* there to read all of it.",
    "instruction.show": "Show whole instruction",
    "instruction.title": "Whole instruction",
    "turn.asked": "<@{user}> asked:",
    "turn.sending": ":outbox_tray: Sending the refinement from <@{user}>…",
    "turn.queued": ":hourglass_flowing_sand: Refinement from <@{user}> is queued.",
    "turn.running": ":gear: Refining for <@{user}>… (attempt {attempt})",
    "turn.requeued": ":hourglass_flowing_sand: Refining for <@{user}>: the service is retrying "
    "(attempt {attempt} finished without a result). Nothing is lost.",
    "turn.delayed": ":snail: The service is busy. The refinement from <@{user}> will be sent "
    "automatically at {when}.",
    "turn.waiting_for_user": ":warning: The refinement from <@{user}> is waiting until they "
    "connect their content service account. Nothing is lost.",
    "turn.done": ":white_check_mark: Refined for <@{user}>.",
    "turn.failed": ":x: The refinement from <@{user}> failed: {reason}",
    "thread.name": "*{name}*",
    "thread.turns": "turn {count}",
    "thread.follows_variant": "continues variant {n}",
    "thread.newest_by": "newest by <@{user}>",
    "thread.rename": "Rename thread",
    "rename.title": "Rename thread",
    "rename.submit": "Rename",
    "rename.label": "Thread name",
    "rename.hint": "Up to 60 characters and 8 words; extra spaces are removed.",
    "rename.thread_name_empty": "Type a name.",
    "rename.thread_name_too_long": "A thread name holds at most 60 characters and 8 words.",
    "rename.thread_name_not_plain_text": "Use plain text on one line, without control characters.",
    "rename.done": ":white_check_mark: The thread is now called *{name}*.",
    "rename.refused": "The content service did not accept the name “{name}”: {problem}",
    "rename.connect": "Connect your content service account first (`/suggest connect`): a "
    "thread is renamed with your own account.",
    "rename.no_thread_yet": "The content service creates this thread's history with its first "
    "refinement. Reply in the thread to refine, then rename it.",
    "rename.not_visible": ":lock: You can't see this thread in the content service, so you "
    "can't rename it with your account.",
    "rename.failed": "The content service could not rename the thread. Please try again later.",
    "draft.title": "Save a draft",
    "draft.submit": "Save draft",
    "draft.subject": "Subject",
    "draft.body": "Email text",
    "draft.body_hint": "The email as you wrote it; it is saved as it is and can be refined "
    "in its thread.",
    "draft.empty_subject": "Write a subject.",
    "draft.empty_body": "Write the email text.",
    "draft.root": ":memo: Draft email by <@{user}>, saved. Reply in this thread to refine it.",
    "draft.context": "{segment} · {use_case} · draft",
    "draft.dm_fallback": "Your draft from <#{channel}> (I'm not in that channel):",
    "draft.failed": "The content service did not save the draft. Try again with `/suggest "
    "draft`; if it keeps failing, give your support team this code: `{code}`.",
    "lists.threads_title": "Your recent threads",
    "lists.runs_title": "Your recent runs",
    "lists.threads_empty": "No threads yet. Send a brief and reply to a variant to refine it.",
    "lists.runs_empty": "No runs yet. Send a brief with `/suggest brief`.",
    "lists.thread_line": "*{n}.* *{name}* · {origin} · {turns} {turns|turn|turns} · {when}",
    "lists.run_line": "*{n}.* *{kind}* · {status} · {when}\n{text}",
    "lists.unnamed": "Unnamed thread",
    "lists.origin.precompute": "ready-made",
    "lists.origin.steered": "from a brief",
    "lists.origin.user_draft": "draft",
    "lists.run_type.brief": "Brief",
    "lists.run_type.refinement": "Refinement",
    "lists.status.queued": "queued",
    "lists.status.running": "running",
    "lists.status.succeeded": "done",
    "lists.status.failed": "failed",
    "lists.history": "History {n}",
    "lists.more": "More",
    "lists.end": "That's all.",
    "lists.none_yet_more": "Nothing of yours among the newest ones read so far. "
    "Press *More* to look further back.",
    "lists.loading": "Loading…",
    "lists.left_out": "{count} more not shown.",
    "lists.connect": "Connect your content service account first with `/suggest connect`.",
    "lists.unavailable": "The content service could not be reached. Please try again later.",
    "history.thread_title": "Thread history",
    "history.run_title": "Run history",
    "history.thread_intro": "*{name}* · {turns} {turns|turn|turns}, oldest first.",
    "history.turn_first": "*Turn {n}* · {when} · the original",
    "history.turn": "*Turn {n}* · {when}",
    "history.turn_other": "*Turn {n}* · {when} · refined by someone else",
    "history.lineage_intro": "How this suggestion came about, original first ({steps} "
    "{steps|step|steps}).",
    "history.original": "*{n}.* Original (variant {variant}) · {when}",
    "history.step": "*{n}.* Refined · {when}",
    "history.now": "*{n}.* This result · {when}",
    "history.set_intro": "{count} {count|variant|variants} from the brief:",
    "history.variant": "*Variant {n}* · {kind}",
    "history.no_result": "This run has no result (yet).",
    "history.not_visible": ":lock: You can't see this in the content service.",
    "home.title": "suggestbot",
    "home.linked": ":link: Your content service account is connected (since {since}).",
    "home.expired": ":warning: The content service no longer accepts your token. Connect again.",
    "home.unlinked": "Connect your content service account to send briefs and refine.",
    "home.disconnect": "Disconnect",
    "home.refresh": "Refresh",
    "home.service_unavailable": "The content service could not be reached; runs and threads "
    "are missing below.",
    "home.results": "*Recent results*",
    "home.results_empty": "No finished briefs yet. Send one with `/suggest brief`.",
    "home.result_line": "*{n}.* {status} · {when}\n{text}",
    "home.result_ready": ":white_check_mark: {count} {count|variant|variants} ready",
    "home.result_failed": ":x: failed",
    "home.result_link": "<{link}|Open the thread>",
    "home.runs": "*Runs in progress*",
    "home.runs_empty": "Nothing is running.",
    "home.more_runs": "{count} more running.",
    "home.threads": "*Recent threads*",
    "home.threads_empty": "No threads yet.",
    "home.more_threads": "More with `/suggest threads`.",
    "home.digests": "*Your digests*",
    "home.digests_empty": "You have not set up a digest. Try `/suggest digest add` in a channel.",
    "home.more_digests": "{count} more not shown (`/suggest digest list`).",
    "home.digest_line": "{channel} · *{segment}* · *{use_case}* · {time} {tz} · {days}",
    "home.digest_paused": "(paused)",
    "home.digest_paused_because": "(paused: {reason})",
    "home.weekday.mon": "Mon",
    "home.weekday.tue": "Tue",
    "home.weekday.wed": "Wed",
    "home.weekday.thu": "Thu",
    "home.weekday.fri": "Fri",
    "home.weekday.sat": "Sat",
    "home.weekday.sun": "Sun",
    # usage panel
    "home.usage": "*Usage in this workspace*",
    "home.usage_counts": "Last {days} days: {briefs} {briefs|brief|briefs}, {refinements} "
    "{refinements|refinement|refinements}, {digests} {digests|digest|digests} sent",
    "home.usage_rates": "*Thumbs up by segment and use case*",
    "home.usage_rate_line": "*{segment}* · *{use_case}* — 7 days: {week} · 30 days: {month}",
    "home.usage_rate": "{percent} % of {votes} {votes|vote|votes}",
    "home.usage_no_votes": "no votes",
    "home.usage_rates_empty": "No feedback yet: press a thumb under a variant to rate it.",
    # workspace settings for admins (multi-workspace installs)
    "admin.title": "*Workspace settings* (admins only)",
    "admin.service_own": "This workspace uses the content service at {url} with client "
    "`{client_id}` (set by <@{user}>, {when}).",
    "admin.service_default": "This workspace uses the app's default content service. Set your "
    "workspace's own credentials to use your tenant.",
    "admin.set": "Set service credentials",
    "admin.modal_title": "Content service",
    "admin.modal_intro": "The machine credential of your workspace's tenant. It is checked "
    "with the service first; the secret is stored encrypted.",
    "admin.url": "Service URL",
    "admin.url_hint": "For example https://content.example.com",
    "admin.client_id": "Client ID",
    "admin.client_secret": "Client secret",
    "admin.save": "Check and save",
    "admin.cancel": "Cancel",
    "admin.url_invalid": "Enter the service's address, e.g. https://content.example.com.",
    "admin.url_insecure": "Use an https:// address (plain http only on this machine).",
    "admin.only_admins": "Only a workspace admin can change the workspace's content service.",
    "admin.saved": ":white_check_mark: Checked and saved: this workspace now uses the content "
    "service at {url}.",
    "admin.rejected": "The service at {url} did not accept this client ID and secret. Nothing "
    "was changed.",
    "admin.unreachable": "The service at {url} could not be reached to check the credentials. "
    "Nothing was changed; try again later.",
    # reliability: a brief modal that arrives without one of its choices
    "brief.missing_choice": "Choose one, then send the brief again.",
    "brief.variants_out_of_range": "Choose how many variants you want: 1 to {most}.",
}

_DE: dict[str, str] = {
    "help.title": "suggestbot — Content-Vorschläge in Slack",
    "help.body": (
        "*Briefings*\n"
        "`/suggest brief [Text]` — Briefing senden; 1–3 Varianten erscheinen im Thread.\n"
        "Im Dialog passen bis zu 3.000 Zeichen; längere Briefings (bis 4.000) "
        "direkt nach `/suggest brief` eingeben.\n"
        "\n"
        "*Verfeinern*\n"
        "Antworte im Thread eines Ergebnisses, um es zu verfeinern (`2: …` wählt Variante 2), "
        "oder drücke *Verfeinern…*.\n"
        "`/suggest draft` — eine selbst geschriebene E-Mail speichern und im Thread verfeinern.\n"
        "`/suggest threads` / `/suggest runs` — deine letzten Threads und Läufe, mit Verlauf.\n"
        "\n"
        "*Fertige Inhalte*\n"
        "`/suggest inspire [Segment] [Anwendungsfall] [--version N] [--refresh]` — die neuesten "
        "fertigen Inhalte, zum Teilen im Kanal oder Verfeinern.\n"
        "`/suggest digest add` — sie hier nach Zeitplan posten.   "
        "`/suggest digest list|pause|resume|preview|remove [ID]` — Digests verwalten.\n"
        "\n"
        "*Konto*\n"
        "`/suggest connect` — persönliches Token des Content-Dienstes verknüpfen.\n"
        "`/suggest disconnect` — Verknüpfung lösen.   `/suggest status` — Verknüpfung anzeigen.\n"
        "`/suggest help` — diese Hilfe."
    ),
    "help.unknown_subcommand": "`/suggest {sub}` kenne ich nicht. Das kann ich:",
    "connect.title": "Konto verknüpfen",
    "connect.label": "Persönliches Token",
    "connect.hint": "Füge das persönliche Token deines Content-Dienst-Kontos ein. "
    "Es wird verschlüsselt gespeichert und nie wieder angezeigt.",
    "connect.submit": "Verknüpfen",
    "connect.cancel": "Abbrechen",
    "connect.done": ":white_check_mark: Dein Konto ist verknüpft.",
    "connect.rejected": "Der Dienst hat dieses Token nicht akzeptiert. Prüfe es und versuche es "
    "erneut.",
    "connect.empty": "Füge hier dein Token ein.",
    "connect.unreachable": "Der Dienst war zum Prüfen des Tokens nicht erreichbar. "
    "Bitte versuche es in einer Minute erneut.",
    "connect.button": "Konto verknüpfen",
    "connect.checking": ":hourglass_flowing_sand: Dein Token wird beim Dienst geprüft…",
    "connect.held_ready": "Dein Konto ist verknüpft. Dein Briefing ist aufbewahrt: Drücke "
    "*Erneut senden*, um es zu senden.",
    "modal.close": "Schließen",
    "error.only_author": "Nur <@{user}>, von dem dieses Briefing stammt, kann das tun: Läufe "
    "werden mit dem eigenen Konto erstellt.",
    "connect.needed": "Verknüpfe zuerst dein Konto beim Content-Dienst. Deine Eingabe bleibt "
    "erhalten: Drücke *Erneut senden*, sobald du verknüpft bist.",
    "connect.expired": "Der Dienst akzeptiert dein Token nicht mehr. Verknüpfe es neu mit "
    "`/suggest connect`.",
    "connect.expired_kept": "Der Dienst akzeptiert dein Token nicht mehr. Drücke *Konto "
    "verknüpfen*, um es neu zu verknüpfen, dann *Erneut senden*: Deine Anfrage bleibt erhalten.",
    "connect.unreadable_kept": "Deine gespeicherte Verknüpfung mit dem Content-Dienst kann hier "
    "nicht mehr gelesen werden. Drücke *Konto verknüpfen*, um sie neu zu verknüpfen, dann "
    "*Erneut senden*: Deine Anfrage bleibt erhalten.",
    "disconnect.done": "Dein Konto ist getrennt. Dein Token wurde gelöscht.",
    "disconnect.none": "Es ist kein Konto verknüpft.",
    "status.linked": ":link: Dein Konto ist verknüpft (seit {since}).",
    "status.expired": ":warning: Dein Token wurde am {since} vom Dienst abgelehnt. "
    "Verknüpfe es neu mit `/suggest connect`.",
    "status.unreadable": ":warning: Deine Verknüpfung ist nicht mehr nutzbar: Die "
    "Schlüssel der App wurden geändert und dein gespeichertes Token lässt sich nicht mehr "
    "lesen. Verknüpfe es neu mit `/suggest connect`; deine Anfragen bleiben erhalten.",
    "status.unlinked": "Es ist kein Konto verknüpft. Nutze `/suggest connect`.",
    "status.workspace_ok": "Workspace: mit dem Content-Dienst verbunden ({mode}).",
    "status.workspace_down": "Workspace: der Content-Dienst ist gerade nicht erreichbar.",
    "status.mode_embedded": "eingebaute Sandbox",
    "status.mode_service": "Content-Dienst",
    "brief.title": "Neues Briefing",
    "brief.submit": "Senden",
    "brief.cancel": "Abbrechen",
    "brief.segment": "Segment",
    "brief.use_case": "Anwendungsfall",
    "brief.text": "Briefing",
    "brief.text_hint": "Anweisungen für den Generator, nicht der Text selbst. Hier bis zu "
    "3.000 Zeichen; längere Briefings (bis 4.000) über `/suggest brief <Text>`.",
    "brief.variants": "Varianten",
    "brief.returned": "Hier ist dein Briefing wie eingegeben, zum Kürzen und erneut Senden:",
    "outage.command": "Ich kann gerade keine Anfragen annehmen: mein Speicher ist nicht "
    "erreichbar. Es ist nichts passiert — bitte sende es in einer Minute noch einmal.",
    "outage.returned": "Hier ist, was du eingegeben hast, zum erneut Senden:",
    "brief.long_kept": "Dein Briefing mit {count} Zeichen bleibt wie eingegeben und wird mit "
    "der Auswahl unten gesendet.",
    "brief.loading": "Segmente und Anwendungsfälle werden geladen…",
    "brief.no_segments": "Noch kein Segment oder Anwendungsfall ist eingerichtet. "
    "Frag eine Admin-Person.",
    "brief.input_too_long": "Dieses Briefing hat {count} Zeichen; "
    "der Dienst nimmt höchstens 4.000.",
    "brief.input_rejected": "Das Briefing ist leer. Beschreibe, was der Inhalt erreichen soll.",
    "brief.input_invalid_encoding": "Das Briefing enthält Steuerzeichen oder defekte Zeichen, "
    "die kein Text sind. Entferne sie und sende erneut.",
    "input.invalid_encoding": "Das enthält Steuerzeichen oder defekte Zeichen, die kein Text "
    "sind. Entferne sie und sende erneut.",
    "brief.using_defaults": "Gesendet mit den letzten Einstellungen von <@{user}>: "
    "*{segment}* · *{use_case}* · {variants} {variants|Variante|Varianten}.",
    "brief.change": "Ändern",
    "root.queued": ":hourglass_flowing_sand: Briefing von <@{user}> ist in der Warteschlange.",
    "root.running": ":gear: Generiere für <@{user}>… (Versuch {attempt})",
    "root.running_again": ":gear: Generiere für <@{user}>… (Versuch {attempt}: Der Dienst "
    "versucht es erneut, nachdem ein Versuch nicht fertig wurde; es geht nichts verloren)",
    "root.requeued": ":hourglass_flowing_sand: Generiere für <@{user}>: Der Dienst versucht es "
    "erneut (Versuch {attempt} endete ohne Ergebnis). Es geht nichts verloren.",
    "root.sending": ":outbox_tray: Sende Briefing von <@{user}>…",
    "root.ready": ":sparkles: Die Ergebnisse für <@{user}> sind fertig: {count} "
    "{count|Vorschlag|Vorschläge}. "
    "Antworte in diesem Thread, um zu verfeinern.",
    "root.failed": ":x: Das Briefing von <@{user}> ist fehlgeschlagen: {reason}",
    "root.delayed": ":snail: Der Dienst ist ausgelastet. Das Briefing von <@{user}> wird um "
    "{when} automatisch gesendet.",
    "root.waiting_for_user": ":warning: Das Briefing von <@{user}> wartet, bis die Person ihr "
    "Konto beim Content-Dienst verknüpft. Es geht nichts verloren.",
    "root.brief_quote": "> {brief}",
    "root.context": "{segment} · {use_case} · {variants} {variants|Variante|Varianten}",
    "status.sending": "sendet die Anfrage…",
    "status.delayed": "wartet: Der Dienst ist ausgelastet und sendet gleich erneut…",
    "status.queued": "steht beim Dienst in der Warteschlange…",
    "status.requeued": "versucht es erneut (Versuch {attempt})…",
    "status.running": "schreibt (Versuch {attempt})…",
    "status.posting": "veröffentlicht die Ergebnisse…",
    "status.loading_brief": "Lese dein Briefing…\nSuche den richtigen Ton für das Segment…\n"
    "Entwerfe die Varianten…\nWähle Bilder aus…",
    "status.loading_refine": "Lese deine Anweisung…\nÜberarbeite den Vorschlag…\n"
    "Prüfe die neue Fassung…",
    "composer.prompts_title": "Ein Briefing aus einer Vorlage beginnen:",
    "composer.prompt_title": "{use_case} für {segment}",
    "composer.idea_1": "Eine kurze, freundliche Nachricht zu unserem neuesten Angebot.",
    "composer.idea_2": "Lade sie zu einer Veranstaltung im nächsten Monat ein, mit einem klaren "
    "Aufruf zum Handeln.",
    "composer.idea_3": "Bedanke dich für ihre Treue und schlage vor, was sie als Nächstes "
    "ausprobieren können.",
    "composer.idea_4": "Drei Gründe, uns in dieser Saison zu wählen, kurz und schwungvoll.",
    "composer.variant_option": "{count} {count|Variante|Varianten}",
    "composer.choices_hint": "Wähle ein anderes Segment, einen anderen Anwendungsfall oder "
    "eine andere Anzahl Varianten, um dieses Briefing damit erneut zu senden; deine Wahl gilt "
    "auch für deine nächsten Briefings.",
    "composer.choice_kept": "Dein Briefing geht erneut an {segment} · {use_case} mit "
    "{variants} {variants|Variante|Varianten}; deine nächsten Briefings nutzen das auch.",
    "composer.kept": "Der Content-Dienst war nicht erreichbar, um Segment und Anwendungsfall "
    "zu wählen. Dein Briefing ist aufbewahrt: Drücke *Erneut senden*, um es zu senden.",
    "composer.not_yours": "Nur die Person, die dieses Briefing geschrieben hat, kann es mit "
    "anderer Auswahl erneut senden.",
    "shortcut.from_message": "Aus <{link}|einer Nachricht>",
    "variant.header": "Variante {n} von {total}",
    "variant.kind.email": "E-Mail",
    "variant.kind.social_single_image": "Social-Post",
    "variant.subject": "*Betreff:* {subject}",
    "variant.rationale": "_Warum:_ {rationale}",
    "variant.refresh": "Vorschau erneuern",
    "variant.preview_expired": "Bildlinks laufen nach 15 Minuten ab: Drücke *Vorschau erneuern*, "
    "um das Bild wieder zu sehen.",
    "variant.skipped": "{count} {count|Vorschlag|Vorschläge} einer hier noch unbekannten Art "
    "{count|wurde|wurden} "
    "übersprungen.",
    "variant.continued": "(Fortsetzung)",
    # Feedback zu Varianten und Runden
    "feedback.good": "Guter Vorschlag",
    "feedback.bad": "Nicht hilfreich",
    "feedback.good_label": "Diesen Vorschlag als gut markieren",
    "feedback.bad_label": "Diesen Vorschlag als nicht hilfreich markieren",
    "feedback.reason_title": "Was passte nicht?",
    "feedback.reason_label": "Sag uns warum (optional)",
    "feedback.reason_placeholder": "Zum Beispiel: zu lang, falscher Ton, Bild passt nicht",
    "feedback.reason_submit": "Senden",
    "feedback.reason_skip": "Überspringen",
    "feedback.reason_intro": "Danke — deine Stimme ist gezählt. Ein paar Worte dazu, was nicht "
    "gepasst hat, helfen den nächsten Briefings.",
    # die Galerie mehrerer Varianten
    "gallery.title": "Variante {n} · {kind}",
    "gallery.copy": "Text kopieren",
    "gallery.fallback": "{count} Varianten sind fertig; jede steht vollständig in diesem Thread.",
    "gallery.copy_intro": "*{title}* als reiner Text, zum Kopieren:",
    "gallery.copy_gone": "Diese Variante kenne ich nicht mehr.",
    # der Workflow-Builder-Schritt „Inhaltsvorschläge erzeugen“
    "step.failed": "Die Inhaltsvorschläge konnten nicht erstellt werden: {reason}",
    "step.not_connected": "Die Person, für die dieser Schritt läuft (<@{user}>), hat noch kein "
    "Konto beim Content-Dienst verknüpft: Sie kann in Slack /suggest connect eingeben und den "
    "Workflow dann erneut ausführen.",
    "step.no_brief": "Das Briefing ist leer: Gib dem Schritt ein Briefing zum Senden.",
    "step.bad_brief": "Das Briefing kann so nicht gesendet werden: {reason}",
    "step.unknown_segment": "Es gibt kein Segment namens „{given}“. Bekannte Segmente: {known}.",
    "step.unknown_use_case": "Es gibt keinen Anwendungsfall namens „{given}“. Bekannte "
    "Anwendungsfälle: {known}.",
    "step.bad_variant_count": "Die Zahl der Varianten muss zwischen 1 und {most} liegen; der "
    "Schritt bekam {given}.",
    "step.no_variant": "Der Lauf endete ohne eine Variante, die diese App zeigen kann.",
    "fail.generation_failed": "beim Generieren ist im Dienst ein Fehler aufgetreten.",
    "fail.generation_timeout": "dem Dienst ist die Zeit ausgegangen. Ein kürzeres Briefing oder "
    "weniger Varianten können helfen.",
    "fail.steering_disabled": "das Generieren aus eigenen Anweisungen ist für diesen Workspace "
    "ausgeschaltet. Bitte die Admin-Person des Dienstes, es einzuschalten; erneutes Senden hilft "
    "nicht.",
    "fail.output_rejected": "der generierte Inhalt hat die Sicherheitsprüfung des Dienstes nicht "
    "bestanden. Formuliere das Briefing um und sende es erneut.",
    "fail.invalid_parent": "der zu verfeinernde Vorschlag ist nicht mehr der neueste im Thread.",
    "fail.image_not_applicable": "dieser Inhalt hat kein Bild; es kann nicht neu erzeugt werden.",
    "fail.unknown": "der Dienst meldete einen Fehler, ohne ihn zu erklären. Drücke *Erneut "
    "versuchen*, um es noch einmal zu senden; schlägt es weiter fehl, gib den Code unten an "
    "deinen Support weiter.",
    "fail.support_code": "Code für den Support: `{code}`",
    "fail.brief.input_too_long": "das Briefing ist länger als die 4.000 Zeichen, die der Dienst "
    "annimmt. Drücke *Bearbeiten und senden*, um es zu kürzen.",
    "fail.brief.input_rejected": "der Dienst hat das Briefing abgelehnt: Es ist leer, oder die "
    "Sicherheitsprüfung des Dienstes hat es zurückgewiesen. Drücke *Bearbeiten und senden*, um "
    "es umzuformulieren.",
    "fail.brief.input_invalid_encoding": "das Briefing enthält Zeichen, die kein Text sind. "
    "Drücke *Bearbeiten und senden*, um sie zu entfernen.",
    "fail.brief.validation_error": "der Dienst konnte das Briefing so nicht annehmen. Drücke "
    "*Bearbeiten und senden*, um deine Auswahl zu prüfen und es erneut zu senden.",
    "fail.instruction.input_too_long": "deine Anweisung ist für den Dienst zu lang. Antworte im "
    "Thread mit einer kürzeren.",
    "fail.instruction.input_rejected": "der Dienst hat deine Anweisung abgelehnt. Antworte im "
    "Thread mit einer umformulierten.",
    "fail.instruction.input_invalid_encoding": "deine Anweisung enthält Zeichen, die kein Text "
    "sind. Antworte im Thread noch einmal ohne sie.",
    "fail.instruction.validation_error": "deine Anweisung war leer. Antworte im Thread, was sich "
    "ändern soll, z. B. `kürzer und freundlicher`.",
    "fail.service_unavailable": "der Dienst war nicht erreichbar. Drücke *Erneut versuchen*.",
    "fail.uncertain": "die Verbindung brach beim Senden ab; das Briefing ist vielleicht "
    "angekommen. Drücke *Erneut versuchen*, falls kein Ergebnis erscheint.",
    "fail.internal": "bei uns ist etwas schiefgegangen (Referenz `{ref}`). Drücke *Erneut "
    "versuchen*.",
    "fail.watch_expired": "der Lauf ist nach langer Wartezeit nicht fertig. Er kann noch "
    "fertig werden: Drücke *Erneut prüfen*.",
    "button.check_again": "Erneut prüfen",
    "button.retry": "Erneut versuchen",
    "button.edit_resend": "Bearbeiten und senden",
    "button.resend": "Erneut senden",
    "button.resend_without_image": "Ohne Bild senden",
    "button.refine_head": "Neuesten verfeinern",
    "slack.not_in_channel": "Ich bin nicht Mitglied von <#{channel}> und kann dort nicht posten. "
    "Lade mich mit `/invite @suggestbot` ein. Bis dahin kommen deine Ergebnisse per "
    "Direktnachricht.",
    "slack.dm_fallback": "Ergebnisse deines Briefings aus <#{channel}> (ich bin nicht in diesem "
    "Kanal):",
    "modal.press_again": "Die App wurde neu gestartet, bevor sie das Formular öffnen konnte. "
    "Bitte drücke die Schaltfläche noch einmal.",
    "error.generic": "Entschuldigung, da ist etwas schiefgegangen (Referenz `{ref}`). "
    "Bitte versuche es erneut.",
    "error.unreadable_command": "Slack hat diesen Befehl ohne alle Angaben gesendet, daher "
    "habe ich nichts getan. Bitte sende ihn erneut.",
    "gone.message": "Diese Nachricht gibt es nicht mehr (sie wurde gelöscht), darin lässt "
    "sich nichts mehr ändern.",
    "gone.thread": "Diesen Thread gibt es nicht mehr (seine erste Nachricht wurde gelöscht). "
    "Beginne einen neuen mit `/suggest brief`.",
    "gone.view": "Das Fenster wurde geschlossen, bevor ich es füllen konnte. Öffne es erneut, "
    "wenn du es noch brauchst.",
    "gone.trigger": "Das Öffnen hat zu lange gedauert. Bitte drücke den Button (oder sende den "
    "Befehl) erneut.",
    "error.not_found": "Der Dienst kennt dieses Element nicht, oder du darfst es nicht sehen.",
    "error.rate_limited": "Der Dienst ist ausgelastet; versuche es in {seconds} Sekunden erneut.",
    # ready-made content (/suggest inspire) and digests (/suggest digest)
    "inspire.bad_option": "Die Option `{option}` kenne ich nicht. Nutze `/suggest inspire "
    "[Segment] [Anwendungsfall] [--version N] [--refresh]`.",
    "inspire.unknown": "Kein Segment und kein Anwendungsfall passt zu `{text}` (Segmente, die "
    "nicht für Inhalte eingerichtet sind, werden nicht aufgeführt).",
    "inspire.pick_segment": "Für welches Segment möchtest du fertige Inhalte sehen?",
    "inspire.pick_segment_ambiguous": "`{text}` passt zu mehreren Segmenten. Welches meinst du?",
    "inspire.pick_use_case": "Welcher Anwendungsfall?",
    "inspire.pick_use_case_ambiguous": "`{text}` passt zu mehreren Anwendungsfällen. Welchen "
    "meinst du?",
    "inspire.chosen_segment": "Segment: *{name}*",
    "inspire.chosen_use_case": "Anwendungsfall: *{name}*",
    "inspire.nothing_to_pick": "Es gibt nichts zur Auswahl: Noch kein Segment oder "
    "Anwendungsfall ist für Inhalte eingerichtet. Frag eine Admin-Person.",
    "inspire.title_newest": ":bulb: *Fertige Inhalte* für *{segment}* · *{use_case}*: "
    "Version {version} (die neueste)",
    "inspire.title_version": ":bulb: *Fertige Inhalte* für *{segment}* · *{use_case}*: "
    "Version {version}",
    "inspire.older_hint": "Ältere Inhalte: Hänge `--version {previous}` an den Befehl an.",
    "inspire.left_out": "{count} {count|weitere Variante passte|weitere Varianten passten} nicht "
    "in diese Nachricht.",
    "inspire.no_preview": "Gerade keine Bildvorschau; das Bild erscheint, wenn die Variante "
    "geteilt wird.",
    "inspire.share_button": "#{n} im Kanal teilen",
    "inspire.refine_button": "#{n} verfeinern…",
    "inspire.empty": "*Noch keine fertigen Inhalte für {segment} · {use_case}.* Mögliche "
    "Gründe:\n"
    "• Das Konto des Workspaces beim Content-Dienst ist neu (fertige Inhalte entstehen über "
    "Nacht);\n"
    "• das Segment ist nicht für Inhalte eingerichtet;\n"
    "• die erste Generierung ist noch nicht fertig.\n"
    "Drücke *Jetzt generieren*, um sie anzufordern; ich poste sie hier, sobald sie fertig sind.",
    "inspire.generate_button": "Jetzt generieren",
    "inspire.no_such_version": "Von den fertigen Inhalten für *{segment}* · *{use_case}* gibt "
    "es keine Version {version}. Die neueste ist Version {newest}.",
    "inspire.show_newest": "Neueste zeigen",
    "inspire.locale_mismatch": ":warning: Keine fertigen Inhalte für *{segment}* · "
    "*{use_case}* in `{configured}`: Dieser Workspace ist auf Inhalte in `{configured}` "
    "eingestellt, der Content-Dienst hält seine Inhalte aber in `{held}`. Eine Admin-Person muss "
    "`CONTENT_LOCALE={held}` setzen; bis dahin bleibt das leer.",
    "inspire.unavailable": "Der Content-Dienst war nicht erreichbar. Bitte versuche es in einer "
    "Minute erneut.",
    "inspire.not_set_up": "Der Content-Dienst kennt *{segment}* nicht, oder es ist nicht für "
    "Inhalte eingerichtet; dafür kann nichts generiert werden. Frag eine Admin-Person.",
    "inspire.generating": ":hourglass_flowing_sand: Fertige Inhalte für *{segment}* · "
    "*{use_case}* werden generiert. Ich poste sie hier, sobald sie fertig sind.",
    "inspire.ready": ":sparkles: Die angeforderten fertigen Inhalte sind da: *{segment}* · "
    "*{use_case}*.",
    "inspire.watch_expired": "Die Inhalte für *{segment}* · *{use_case}* sind nach langer "
    "Wartezeit nicht erschienen. Versuche `/suggest inspire` später noch einmal.",
    "inspire.offer_gone": "Diese Antwort ist abgelaufen. Führe `/suggest inspire` erneut aus.",
    "inspire.shared_intro": "Geteilt von <@{user}> aus fertigen Inhalten: {segment} · "
    "{use_case}, Version {version}",
    "inspire.refine_hint": "Antworte in diesem Thread, um den Vorschlag zu verfeinern.",
    "inspire.cannot_post": "Ich kann in <#{channel}> nicht posten. Lade mich mit `/invite "
    "@suggestbot` ein und drücke den Knopf erneut.",
    "inspire.shared": ":white_check_mark: In <#{channel}> geteilt. Antworte in seinem Thread, "
    "um zu verfeinern.",
    "inspire.already_shared": "Diese Variante ist bereits in <#{channel}> geteilt.",
    "inspire.refine_there": "Die Variante ist jetzt in <#{channel}>: Antworte in ihrem Thread, "
    "was sich ändern soll, dann wird sie dort verfeinert.",
    "inspire.open": "Öffnen",
    "digest.header": "Inspiration: {segment} · {use_case}",
    "digest.version": "Neueste fertige Inhalte, Version {version}",
    "digest.refine_hint": "Antworte in diesem Thread, um eine Variante zu verfeinern: Beginne "
    "mit ihrer Nummer, zum Beispiel `2: kürzer`.",
    "digest.late": ":clock3: Verspätet gepostet: Dieser Digest war um {time} ({tz}) fällig, "
    "als die App nicht verfügbar war.",
    "digest.unchanged": ":zzz: Heute keine neue Inspiration für *{segment}* · *{use_case}* "
    "(weiterhin Version {version}).",
    "digest.nothing_yet": ":zzz: Noch keine fertigen Inhalte für *{segment}* · *{use_case}*.",
    "digest.usage": "`/suggest digest {sub}` kenne ich nicht. Nutze `add`, `list`, `pause`, "
    "`resume`, `preview` oder `remove` (mit der ID des Digests).",
    "digest.invite_first": "Ich bin nicht Mitglied von <#{channel}> und kann dort keinen "
    "Digest posten. Lade mich zuerst mit `/invite @suggestbot` ein.",
    "digest.modal_title": "Täglicher Digest",
    "digest.submit": "Digest anlegen",
    "digest.cancel": "Abbrechen",
    "digest.time": "Uhrzeit",
    "digest.tz": "Zeitzone",
    "digest.tz_hint": "Eine IANA-Zeitzone wie Europe/Berlin oder America/New_York. Deine ist "
    "eingetragen.",
    "digest.weekdays": "Wochentage",
    "digest.when_unchanged": "Wenn nichts neu ist",
    "digest.when_unchanged_line": "Eine kurze Zeile posten",
    "digest.when_unchanged_nothing": "Nichts posten",
    "digest.weekday.0": "Mo",
    "digest.weekday.1": "Di",
    "digest.weekday.2": "Mi",
    "digest.weekday.3": "Do",
    "digest.weekday.4": "Fr",
    "digest.weekday.5": "Sa",
    "digest.weekday.6": "So",
    "digest.every_day": "jeden Tag",
    "digest.bad_time": "Wähle eine Uhrzeit wie 09:00.",
    "digest.bad_tz": "„{tz}“ kenne ich nicht als Zeitzone. Nutze einen Namen wie Europe/Berlin.",
    "digest.no_weekdays": "Wähle mindestens einen Tag.",
    "digest.choose": "Bitte auswählen.",
    "digest.added": ":white_check_mark: Digest `{id}` angelegt: *{segment}* · *{use_case}* in "
    "<#{channel}> um {time} ({tz}), {days}. Nächster: {next}.",
    "digest.list_title": "*Digests in <#{channel}>* (und deine anderswo)",
    "digest.none": "Noch keine Digests. Lege einen mit `/suggest digest add` an.",
    "digest.line": "`{id}` · *{segment}* · *{use_case}* in <#{channel}> um {time} ({tz}), {days}",
    "digest.state_active": "Aktiv · nächster {next}",
    "digest.state_paused": "Pausiert",
    "digest.state_paused_because": "Pausiert: {reason}",
    "digest.last_delivery": "Letzte Zustellung: {at}",
    "digest.never": "nie",
    "digest.last_error": "Letztes Problem {at}: {error}",
    "digest.last_error_same": "Letztes Problem {at}: das obige",
    "digest.problem.not_in_channel": "Ich wurde aus <#{channel}> entfernt — lade mich mit "
    "`/invite @suggestbot` wieder ein und drücke dann *Fortsetzen*.",
    "digest.problem.is_archived": "<#{channel}> wurde archiviert — hol den Kanal zurück oder "
    "wähle einen anderen und drücke dann *Fortsetzen*.",
    "digest.problem.channel_not_found": "<#{channel}> gibt es nicht mehr, oder ich sehe ihn "
    "nicht mehr — lade mich mit `/invite @suggestbot` ein und drücke dann *Fortsetzen*.",
    "digest.problem.restricted_action": "Ich darf in <#{channel}> nicht posten — bitte eine "
    "Workspace-Admin-Person, es zu erlauben, und drücke dann *Fortsetzen*.",
    "digest.problem.service_unavailable": "Der Content-Dienst war nicht erreichbar; die nächste "
    "Zustellung versucht es erneut.",
    "digest.problem.content_locale_mismatch": "Der Content-Dienst hält seine fertigen Inhalte "
    "in einer anderen Sprache, als dieser Workspace eingestellt ist; eine Admin-Person muss "
    "`CONTENT_LOCALE` ändern.",
    "digest.problem.other": "Slack hat den Post in <#{channel}> abgelehnt. Drücke *Fortsetzen*, "
    "um es erneut zu versuchen.",
    "digest.problem.token_revoked": "Slack hat mir den Zugriff auf diesen Workspace entzogen — "
    "eine Admin-Person muss suggestbot neu installieren; drücke dann *Fortsetzen*.",
    "digest.problem.app_uninstalled": "suggestbot wurde aus diesem Workspace entfernt — eine "
    "Admin-Person muss es neu installieren; drücke dann *Fortsetzen*.",
    "digest.no_error": "keine Fehler",
    "digest.pause_button": "Pausieren",
    "digest.resume_button": "Fortsetzen",
    "digest.preview_button": "Vorschau",
    "digest.remove_button": "Entfernen",
    "digest.more": "{count} weitere nicht angezeigt.",
    "digest.not_found": "Kein eindeutiger Digest passt zu `{ref}`.",
    "digest.paused": ":double_vertical_bar: Digest `{id}` in <#{channel}> ist pausiert. Setze "
    "ihn mit `/suggest digest resume {id}` fort.",
    "digest.resumed": ":arrow_forward: Digest `{id}` in <#{channel}> ist wieder aktiv.",
    "digest.removed": ":wastebasket: Digest `{id}` (*{segment}* · *{use_case}*) in "
    "<#{channel}> ist entfernt.",
    "digest.paused_dm": ":warning: Dein Digest `{id}` (*{segment}* · *{use_case}*) in "
    "<#{channel}> ist pausiert: {reason}. Sobald das behoben ist, führe `/suggest digest resume "
    "{id}` aus.",
    "digest.reason.not_in_channel": "Ich wurde aus dem Kanal entfernt (lade mich mit `/invite "
    "@suggestbot` wieder ein)",
    "digest.reason.is_archived": "Der Kanal wurde archiviert",
    "digest.reason.channel_not_found": "Den Kanal gibt es nicht mehr oder ich sehe ihn nicht mehr",
    "digest.reason.restricted_action": "Posten im Kanal ist eingeschränkt",
    "digest.reason.other": "Slack hat den Post abgelehnt",
    # Verfeinern in Threads, Entwürfe, Listen und App-Startseite
    "refine.button": "Verfeinern…",
    "refine.title": "Vorschlag verfeinern",
    "refine.submit": "Verfeinern",
    "refine.instruction": "Was soll sich ändern?",
    "refine.instruction_hint": "Eine Anweisung für den Generator, z. B. „kürzer, und erwähne "
    "die kostenlose Rücksendung“.",
    "refine.image": "Bild",
    "refine.image_reuse": "Bild behalten",
    "refine.image_regenerate": "Neues Bild erzeugen",
    "refine.note_variant": "Das verfeinert *Variante {n}*; der Thread geht dann mit ihr weiter.",
    "refine.note_newest": "Das verfeinert die neueste Runde (Runde {n}): Ein Thread geht mit "
    "seiner neuesten Runde weiter und verzweigt sich nicht.",
    "refine.empty": "Schreib, was sich ändern soll, z. B. `2: kürzer und freundlicher`.",
    "refine.not_ready": "Die Vorschläge dieses Threads sind noch nicht fertig. Antworte erneut, "
    "sobald sie gepostet sind.",
    "refine.connect_needed": "Verknüpfe zum Verfeinern zuerst dein Konto beim Content-Dienst. "
    "Deine Antwort bleibt erhalten: Drücke *Erneut senden*, sobald du verknüpft bist.",
    "refine.held_ready": "Dein Konto ist verknüpft. Deine Antwort ist aufbewahrt: Drücke "
    "*Erneut senden*, um damit zu verfeinern.",
    "refine.files_not_used": "Angehängte Dateien verwendet der Content-Dienst nicht: Der Text "
    "deiner Antwort verfeinert den Vorschlag, die Dateien bleiben außen vor.",
    "refine.files_without_text": "Angehängte Dateien verwendet der Content-Dienst nicht. Antworte "
    "zum Verfeinern in diesem Thread mit dem, was sich ändern soll, z. B. "
    "`2: kürzer und freundlicher`.",
    "refine.invalid_encoding": "Deine Antwort enthält Steuerzeichen oder defekte Zeichen, die "
    "kein Text sind, daher wurde nichts verfeinert. Entferne sie und antworte erneut.",
    "refine.not_visible": ":lock: Du kannst diesen Vorschlag im Content-Dienst nicht sehen und "
    "ihn daher nicht mit deinem Konto verfeinern. Bitte die Person, die ihn erstellt hat, ihn "
    "zu verfeinern oder ihn im Dienst für dich freizugeben.",
    "refine.not_visible_reason": "du kannst den zu verfeinernden Vorschlag im Content-Dienst "
    "nicht sehen.",
    "choose.question": "Dieser Thread hat {count} Varianten. Welche soll deine Antwort verfeinern?",
    "choose.variant_line": "*Variante {n}* · {label}",
    "choose.button": "Variante {n}",
    "choose.already": "Dieser Thread geht bereits mit *Variante {n}* weiter: Antworten "
    "verfeinern ihre neueste Runde (Threads verzweigen sich nicht). Damit verfeinern?",
    "choose.taken": ":white_check_mark: Variante {n} wird mit deiner Antwort verfeinert.",
    "choose.gone": "Diese Antwort wurde schon gesendet oder wird nicht mehr aufbewahrt (nicht "
    "gesendete Antworten bleiben {days} Tage). Antworte noch einmal im Thread, um zu verfeinern.",
    "held.gone": "Dieser Text wird nicht mehr aufbewahrt (nicht gesendeter Text bleibt {days} "
    "Tage). Bitte tippe ihn noch einmal.",
    "turn.header": "Runde {n} · {kind}",
    "refine.long_reply": "Deine Antwort mit {count} Zeichen wurde vollständig gesendet. Der "
    "Thread zitiert ihren Anfang: Drücke dort *Ganze Anweisung zeigen*, um alles zu lesen.",
    "instruction.show": "Ganze Anweisung zeigen",
    "instruction.title": "Ganze Anweisung",
    "turn.asked": "<@{user}> bat um:",
    "turn.sending": ":outbox_tray: Sende die Verfeinerung von <@{user}>…",
    "turn.queued": ":hourglass_flowing_sand: Verfeinerung von <@{user}> ist in der Warteschlange.",
    "turn.running": ":gear: Verfeinere für <@{user}>… (Versuch {attempt})",
    "turn.requeued": ":hourglass_flowing_sand: Verfeinere für <@{user}>: Der Dienst versucht "
    "es erneut (Versuch {attempt} endete ohne Ergebnis). Es geht nichts verloren.",
    "turn.delayed": ":snail: Der Dienst ist ausgelastet. Die Verfeinerung von <@{user}> wird um "
    "{when} automatisch gesendet.",
    "turn.waiting_for_user": ":warning: Die Verfeinerung von <@{user}> wartet, bis die Person "
    "ihr Konto beim Content-Dienst verknüpft. Es geht nichts verloren.",
    "turn.done": ":white_check_mark: Für <@{user}> verfeinert.",
    "turn.failed": ":x: Die Verfeinerung von <@{user}> ist fehlgeschlagen: {reason}",
    "thread.name": "*{name}*",
    "thread.turns": "Runde {count}",
    "thread.follows_variant": "geht mit Variante {n} weiter",
    "thread.newest_by": "neueste von <@{user}>",
    "thread.rename": "Thread umbenennen",
    "rename.title": "Thread umbenennen",
    "rename.submit": "Umbenennen",
    "rename.label": "Name des Threads",
    "rename.hint": "Bis zu 60 Zeichen und 8 Wörter; überzählige Leerzeichen werden entfernt.",
    "rename.thread_name_empty": "Gib einen Namen ein.",
    "rename.thread_name_too_long": "Ein Thread-Name hat höchstens 60 Zeichen und 8 Wörter.",
    "rename.thread_name_not_plain_text": "Verwende einfachen Text in einer Zeile, ohne "
    "Steuerzeichen.",
    "rename.done": ":white_check_mark: Der Thread heißt jetzt *{name}*.",
    "rename.refused": "Der Content-Dienst hat den Namen „{name}“ nicht angenommen: {problem}",
    "rename.connect": "Verknüpfe zuerst dein Konto beim Content-Dienst (`/suggest connect`): "
    "Ein Thread wird mit deinem eigenen Konto umbenannt.",
    "rename.no_thread_yet": "Der Content-Dienst legt den Verlauf dieses Threads mit der ersten "
    "Verfeinerung an. Antworte im Thread, um zu verfeinern, und benenne ihn dann um.",
    "rename.not_visible": ":lock: Du kannst diesen Thread im Content-Dienst nicht sehen und ihn "
    "daher nicht mit deinem Konto umbenennen.",
    "rename.failed": "Der Content-Dienst konnte den Thread nicht umbenennen. Bitte versuche es "
    "später erneut.",
    "draft.title": "Entwurf speichern",
    "draft.submit": "Entwurf speichern",
    "draft.subject": "Betreff",
    "draft.body": "E-Mail-Text",
    "draft.body_hint": "Die E-Mail, wie du sie geschrieben hast; sie wird unverändert "
    "gespeichert und lässt sich im Thread verfeinern.",
    "draft.empty_subject": "Schreib einen Betreff.",
    "draft.empty_body": "Schreib den E-Mail-Text.",
    "draft.root": ":memo: E-Mail-Entwurf von <@{user}>, gespeichert. Antworte in diesem "
    "Thread, um ihn zu verfeinern.",
    "draft.context": "{segment} · {use_case} · Entwurf",
    "draft.dm_fallback": "Dein Entwurf aus <#{channel}> (ich bin nicht in diesem Kanal):",
    "draft.failed": "Der Content-Dienst hat den Entwurf nicht gespeichert. Versuche es erneut "
    "mit `/suggest draft`; schlägt es weiter fehl, gib deinem Support diesen Code: `{code}`.",
    "lists.threads_title": "Deine letzten Threads",
    "lists.runs_title": "Deine letzten Läufe",
    "lists.threads_empty": "Noch keine Threads. Sende ein Briefing und antworte auf eine "
    "Variante, um sie zu verfeinern.",
    "lists.runs_empty": "Noch keine Läufe. Sende ein Briefing mit `/suggest brief`.",
    "lists.thread_line": "*{n}.* *{name}* · {origin} · {turns} {turns|Runde|Runden} · {when}",
    "lists.run_line": "*{n}.* *{kind}* · {status} · {when}\n{text}",
    "lists.unnamed": "Thread ohne Namen",
    "lists.origin.precompute": "fertiger Inhalt",
    "lists.origin.steered": "aus einem Briefing",
    "lists.origin.user_draft": "Entwurf",
    "lists.run_type.brief": "Briefing",
    "lists.run_type.refinement": "Verfeinerung",
    "lists.status.queued": "in der Warteschlange",
    "lists.status.running": "läuft",
    "lists.status.succeeded": "fertig",
    "lists.status.failed": "fehlgeschlagen",
    "lists.history": "Verlauf {n}",
    "lists.more": "Mehr",
    "lists.end": "Das ist alles.",
    "lists.none_yet_more": "Unter den bisher gelesenen neuesten Einträgen ist nichts von dir. "
    "Drücke *Mehr*, um weiter zurückzuschauen.",
    "lists.loading": "Wird geladen…",
    "lists.left_out": "{count} weitere nicht angezeigt.",
    "lists.connect": "Verknüpfe zuerst dein Konto beim Content-Dienst mit `/suggest connect`.",
    "lists.unavailable": "Der Content-Dienst war nicht erreichbar. Bitte versuche es später "
    "erneut.",
    "history.thread_title": "Thread-Verlauf",
    "history.run_title": "Lauf-Verlauf",
    "history.thread_intro": "*{name}* · {turns} {turns|Runde|Runden}, älteste zuerst.",
    "history.turn_first": "*Runde {n}* · {when} · das Original",
    "history.turn": "*Runde {n}* · {when}",
    "history.turn_other": "*Runde {n}* · {when} · von jemand anderem verfeinert",
    "history.lineage_intro": "Wie dieser Vorschlag entstand, Original zuerst ({steps} "
    "{steps|Schritt|Schritte}).",
    "history.original": "*{n}.* Original (Variante {variant}) · {when}",
    "history.step": "*{n}.* Verfeinert · {when}",
    "history.now": "*{n}.* Dieses Ergebnis · {when}",
    "history.set_intro": "{count} {count|Variante|Varianten} aus dem Briefing:",
    "history.variant": "*Variante {n}* · {kind}",
    "history.no_result": "Dieser Lauf hat (noch) kein Ergebnis.",
    "history.not_visible": ":lock: Das kannst du im Content-Dienst nicht sehen.",
    "home.title": "suggestbot",
    "home.linked": ":link: Dein Konto beim Content-Dienst ist verknüpft (seit {since}).",
    "home.expired": ":warning: Der Content-Dienst akzeptiert dein Token nicht mehr. Verknüpfe "
    "es neu.",
    "home.unlinked": "Verknüpfe dein Konto beim Content-Dienst, um Briefings zu senden und zu "
    "verfeinern.",
    "home.disconnect": "Trennen",
    "home.refresh": "Aktualisieren",
    "home.service_unavailable": "Der Content-Dienst war nicht erreichbar; Läufe und Threads "
    "fehlen unten.",
    "home.results": "*Neueste Ergebnisse*",
    "home.results_empty": "Noch keine fertigen Briefings. Sende eines mit `/suggest brief`.",
    "home.result_line": "*{n}.* {status} · {when}\n{text}",
    "home.result_ready": ":white_check_mark: {count} {count|Variante|Varianten} fertig",
    "home.result_failed": ":x: fehlgeschlagen",
    "home.result_link": "<{link}|Zum Thread>",
    "home.runs": "*Laufende Läufe*",
    "home.runs_empty": "Gerade läuft nichts.",
    "home.more_runs": "{count} {count|weiterer läuft|weitere laufen}.",
    "home.threads": "*Letzte Threads*",
    "home.threads_empty": "Noch keine Threads.",
    "home.more_threads": "Mehr mit `/suggest threads`.",
    "home.digests": "*Deine Digests*",
    "home.digests_empty": "Du hast keinen Digest eingerichtet. Probiere `/suggest digest add` in "
    "einem Kanal.",
    "home.more_digests": "{count} weitere nicht angezeigt (`/suggest digest list`).",
    "home.digest_line": "{channel} · *{segment}* · *{use_case}* · {time} {tz} · {days}",
    "home.digest_paused": "(pausiert)",
    "home.digest_paused_because": "(pausiert: {reason})",
    "home.weekday.mon": "Mo",
    "home.weekday.tue": "Di",
    "home.weekday.wed": "Mi",
    "home.weekday.thu": "Do",
    "home.weekday.fri": "Fr",
    "home.weekday.sat": "Sa",
    "home.weekday.sun": "So",
    # Nutzungsübersicht
    "home.usage": "*Nutzung in diesem Workspace*",
    "home.usage_counts": "Letzte {days} Tage: {briefs} {briefs|Briefing|Briefings}, "
    "{refinements} {refinements|Verfeinerung|Verfeinerungen}, {digests} "
    "{digests|Digest|Digests} gesendet",
    "home.usage_rates": "*Daumen hoch nach Segment und Anwendungsfall*",
    "home.usage_rate_line": "*{segment}* · *{use_case}* — 7 Tage: {week} · 30 Tage: {month}",
    "home.usage_rate": "{percent} % von {votes} {votes|Stimme|Stimmen}",
    "home.usage_no_votes": "keine Stimmen",
    "home.usage_rates_empty": "Noch kein Feedback: Drücke einen Daumen unter einer Variante.",
    # workspace settings for admins (multi-workspace installs)
    "admin.title": "*Workspace-Einstellungen* (nur für Admins)",
    "admin.service_own": "Dieser Workspace nutzt den Content-Dienst unter {url} mit dem Client "
    "`{client_id}` (eingerichtet von <@{user}>, {when}).",
    "admin.service_default": "Dieser Workspace nutzt den Standard-Content-Dienst der App. "
    "Hinterlege die Zugangsdaten deines Workspace, um deinen Mandanten zu nutzen.",
    "admin.set": "Zugangsdaten hinterlegen",
    "admin.modal_title": "Content-Dienst",
    "admin.modal_intro": "Die Maschinen-Zugangsdaten des Mandanten deines Workspace. Sie werden "
    "zuerst beim Dienst geprüft; das Secret wird verschlüsselt gespeichert.",
    "admin.url": "Adresse des Dienstes",
    "admin.url_hint": "Zum Beispiel https://content.example.com",
    "admin.client_id": "Client-ID",
    "admin.client_secret": "Client-Secret",
    "admin.save": "Prüfen und speichern",
    "admin.cancel": "Abbrechen",
    "admin.url_invalid": "Gib die Adresse des Dienstes ein, z. B. https://content.example.com.",
    "admin.url_insecure": "Verwende eine https://-Adresse (einfaches http nur auf diesem Rechner).",
    "admin.only_admins": "Nur Workspace-Admins können den Content-Dienst des Workspace ändern.",
    "admin.saved": ":white_check_mark: Geprüft und gespeichert: Dieser Workspace nutzt jetzt den "
    "Content-Dienst unter {url}.",
    "admin.rejected": "Der Dienst unter {url} hat diese Client-ID und dieses Secret nicht "
    "akzeptiert. Es wurde nichts geändert.",
    "admin.unreachable": "Der Dienst unter {url} war zum Prüfen der Zugangsdaten nicht "
    "erreichbar. Es wurde nichts geändert; versuche es später noch einmal.",
    # Zuverlässigkeit: ein Briefing-Formular, dem eine Auswahl fehlt
    "brief.missing_choice": "Bitte auswählen und das Briefing noch einmal senden.",
    "brief.variants_out_of_range": (
        "Bitte wählen, wie viele Varianten es sein sollen: 1 bis {most}."
    ),
}

_CATALOGUES: dict[str, dict[str, str]] = {"en": _EN, "de": _DE}


def language_of(slack_locale: str | None) -> str:
    """Map a Slack user locale (``de-DE``, ``en-GB``…) to one of :data:`SUPPORTED`."""
    if not slack_locale:
        return "en"
    lang = slack_locale.replace("_", "-").split("-", 1)[0].lower()
    return lang if lang in SUPPORTED else "en"


# ``{count|one|other}``: the singular when ``count`` is 1, else the plural (English and German
# share this rule), so a sentence never reads "1 variant(s)".
_PLURAL = re.compile(r"\{(\w+)\|([^{}|]*)\|([^{}|]*)\}")


def _plural(template: str, values: dict[str, Any]) -> str:
    def pick(match: re.Match[str]) -> str:
        return match.group(2) if values[match.group(1)] == 1 else match.group(3)

    return _PLURAL.sub(pick, template)


def t(key: str, lang: str = "en", /, **values: Any) -> str:
    """The sentence ``key`` in ``lang`` (falling back to English), with ``values`` filled in."""
    template = _CATALOGUES.get(lang, _EN).get(key) or _EN[key]
    return _plural(template, values).format(**values) if values else template


def all_keys() -> list[str]:
    return sorted(_EN)


def untranslated() -> list[str]:
    """Keys with no German text yet (the tests keep this empty)."""
    return sorted(set(_EN) - set(_DE))

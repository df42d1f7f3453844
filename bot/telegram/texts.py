"""What the bot says itself, in both languages: prompts, errors, button labels and its profile texts.

Everything else a user reads comes from the engine's Reply. Command descriptions sit with their handlers in the
command table (handlers.COMMANDS)."""

from __future__ import annotations

from bot.i18n import Text

T = {
    "welcome": Text("👋 Hi! I'm a GPU advisor for deep learning.", "👋 你好！我是深度学习显卡顾问。"),
    "rate": Text("You're sending messages faster than I can answer well — please wait about {s} seconds and try "
                 "again.", "消息有点多，我需要喘口气 🙂 请大约 {s} 秒后再试。"),
    "text_only": Text("I can only read text messages. Type your question, for example: \"$1500, training CNNs\".",
                      "我只能读文字消息。请直接打字提问，例如：“预算5000元训练CNN”。"),
    "error": Text("Sorry, something went wrong on my side. Please try again in a moment.",
                  "抱歉，我这边出了点问题，请稍后再试。"),
    "expired": Text("That button has expired — please ask again.", "这个按钮已过期，请重新提问。"),
    "chart_button": Text("📈 Speed vs price", "📈 速度/价格图"),
    "no_chart": Text("There's nothing to chart for that answer.", "这个回答没有可以画图的显卡。"),
    "ask_budget": Text("🧭 What's your budget?", "🧭 预算大概多少？"),
    "ask_workload": Text("🧭 What will you use it for?", "🧭 主要用来做什么？"),
    "ask_market": Text("🧭 New cards only, or used too?", "🧭 只看新卡，还是二手也行？"),
    "asking": Text("🧭 Asking: {q}", "🧭 提问：{q}"),
    "back": Text("◀ Back", "◀ 上一步"),
    "details_button": Text("📄 Details and sources", "📄 详情和来源"),
    "cancel": Text("✖ Cancel", "✖ 取消"),
    "cancelled": Text("Cancelled. Type a question any time, or /recommend to start again.",
                      "已取消。随时可以直接提问，或用 /recommend 重新开始。"),
    "usage_compare": Text("Usage: /compare 4090 3090 — or, after a recommendation, /compare alone compares the "
                          "first two picks.", "用法：/compare 4090 3090；推荐之后直接发 /compare 会对比前两个推荐。"),
    "usage_gpu": Text("Usage: /gpu 4090", "用法：/gpu 4090"),
    # what an empty chat shows ("What can this bot do?") and the bot's profile line; Telegram caps them at 512 and 120
    "description": Text(
        "I help you choose a GPU for deep learning — to buy or to rent. Tell me your budget and what you want to run "
        "(\"$1500, LoRA on a 7B model\", \"can my 3060 run a 14B model?\"), and I rank cards with prices, memory and "
        "speed, and say why. I also compare cards, estimate memory and speed for LLMs, and price cloud GPUs. "
        "中文也可以。",
        "我帮你挑深度学习用的显卡——买或租。告诉我预算和用途（例如“预算8000训练CNN”“3060能跑14B模型吗”），"
        "我会列出带价格、显存、速度和理由的推荐；也能对比显卡、估算大模型的显存和速度、查云平台租卡价格。"
        "English works too."),
    "short_description": Text("Which GPU to buy or rent for deep learning, and why. 中文/English.",
                              "深度学习显卡怎么选、去哪租，附理由。中文/English。"),
    "unknown_gpu": Text("I don't know a GPU called “{name}”. The nearest names I have: {near}.",
                        "我没有叫“{name}”的显卡。最接近的有：{near}。"),
    "choose_lang": Text("Choose a language:", "选择语言："),
    "unknown_command": Text("I don't know that command. Try /help.", "没有这个命令，试试 /help。"),
}

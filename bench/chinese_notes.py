"""A person's questions about their own notes written in Chinese, English and both mixed: where the file asked about
ranks, per mode.

Writes its own corpus (in --data, else a temporary folder): 25 notes of one person (meeting notes, 读书笔记, a
project log with code names, a diary dated 2024年3月14日 and 上周三), some in Traditional characters, some with
full-width letters, digits and punctuation (ＡＰＩ, １２３), pinyin names beside the characters, English product names
inside Chinese sentences and a script whose comments are Chinese. Indexes it through the real pipeline
(bench/quality.py's ``build_index``; the model is SIFT_MODEL's, e5 by default, the one a Chinese user gets), asks
each of its 30 questions in keyword, semantic and hybrid search, and prints, per mode, how often the file asked
about came first, among the first five, the mean reciprocal rank of its first hit (0 past the tenth), how many
query words the spelling note named as held nowhere, and how many first hits' snippets mark nothing.

    .venv/bin/python bench/chinese_notes.py [--home DIR] [--data DIR] [--modes keyword,semantic,hybrid] [-v]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import corpus_questions  # noqa: E402

NOTES = {
    "会议/2024-03-14 周会.md": "# 周会 2024-03-14\n\n参会：张伟、李娜、Tom（远程）\n\n## 议题\n\n"
    "1. 订单服务的数据库迁移到 PostgreSQL 16\n2. 下季度招聘计划\n\n## 结论\n\n"
    "- 迁移窗口定在4月6日凌晨，张伟负责回滚方案。\n- 李娜下周给出两个前端岗位的JD。",
    "会议/2024-03-20 产品评审.md": "# 产品评审会\n\n时间：2024年3月20日 14:00\n\n设计稿在Figma里，"
    "用户反馈主要集中在搜索太慢、筛选条件太多。Tom 建议先砍掉高级筛选，下个版本再加回来。\n\n"
    "**待办**：王芳整理用户访谈录音，周五前发群里。",
    "读书笔记/人类简史.md": "# 读书笔记：《人类简史》\n\n作者：尤瓦尔·赫拉利（Yuval Noah Harari）\n\n"
    "认知革命让智人能够讨论虚构的事物，比如神话、国家和公司。“想象的共同体”是全书最重要的概念。\n\n"
    "农业革命是“史上最大的骗局”——人类驯化了小麦，还是小麦驯化了人类？",
    "读书笔记/三体.md": "# 《三体》读后感\n\n刘慈欣的科幻小说。第二部《黑暗森林》提出了宇宙社会学的两条公理，"
    "以及猜疑链和技术爆炸。\n\n罗辑是我最喜欢的角色。面壁计划的设定很有意思。",
    "reading/DDIA chapter 5.md": "# DDIA, chapter 5: Replication\n\nLeader-based replication: writes go to the leader, "
    "followers apply the replication log. Asynchronous followers can fall behind (replication lag), so a user may "
    "not read their own writes.\n\nFixes: read-your-writes consistency, monotonic reads, consistent prefix reads.",
    "项目/Phoenix 项目日志.md": "# Project Phoenix（凤凰计划）日志\n\n## 2024-03-11\n\n"
    "确定了 API 网关用 Kong，鉴权走 OAuth2。老系统的接口先挂在网关后面。\n\n## 2024-03-15\n\n"
    "灰度发布到10%的用户，错误率0.3%，主要是超时。下周加重试。",
    "项目/Nightingale 夜莺监控.md": "# 夜莺（Nightingale）监控接入\n\n把 Prometheus 的告警规则迁到夜莺。"
    "CPU 超过85%持续5分钟就发钉钉通知，磁盘超过90%打电话。\n\n值班表在飞书文档里。",
    "日记/2024年3月14日.md": "# 2024年3月14日 星期四\n\n今天下了一整天的雨。中午和李娜在公司楼下吃了兰州拉面。"
    "晚上给妈妈打电话，她说膝盖又疼了，让她周末去看医生。",
    "日记/2024年3月18日.md": "# 2024年3月18日\n\n上周三去医院做了体检，今天拿到报告：血脂有点高，医生说要少吃油炸的东西，"
    "多运动。决定每周跑三次步。",
    "日记/2024年4月1日.md": "# 2024年4月1日 愚人节\n\n同事在群里说公司要搬到杭州，吓我一跳，原来是愚人节玩笑。"
    "下午把书架整理了一下，捐了二十本旧书。",
    "出差/台北出差.md": "# 台北出差紀錄\n\n這次到台北拜訪客戶，討論他們的數據庫升級計畫。客戶的數據庫是 Oracle 12c，"
    "打算三年內換成開源方案。\n\n晚上在士林夜市吃了大腸包小腸和珍珠奶茶。",
    "生活/牛肉麵食譜.md": "# 紅燒牛肉麵\n\n材料：牛腱一斤、八角三顆、豆瓣醬兩大匙、醬油、冰糖。\n\n"
    "牛腱先汆燙去血水，再用豆瓣醬炒香，加水燉兩個小時。麵條另外煮，不要煮太軟。",
    "技术/Redis 缓存笔记.md": "# Redis 缓存笔记\n\n## 缓存穿透\n\n查询一个不存在的key，每次都打到数据库。解决：布隆过滤器，"
    "或者缓存空值。\n\n## 缓存雪崩\n\n大量key同时过期。解决：过期时间加随机值。\n\n```python\n"
    "# 过期时间加上随机抖动，避免同时失效\nttl = 3600 + random.randint(0, 300)\n```",
    "scripts/backup_db.py": "\"\"\"每天凌晨备份订单数据库到对象存储。\"\"\"\nimport subprocess\n\n\n"
    "def backup(name):\n    # 先导出成 SQL 文件，再压缩上传；保留最近30天\n"
    "    subprocess.run([\"pg_dump\", name, \"-f\", f\"/tmp/{name}.sql\"], check=True)\n"
    "    # 注意：上传失败要重试三次，否则发告警\n    upload(f\"/tmp/{name}.sql\")\n",
    "技术/密钥管理.md": "# 密钥管理\n\n第三方服务的ＡＰＩ密钥统一放在１Password的“开发”保险库里，"
    "不要写进代码仓库。测试环境的端口号是８０８０，生产环境走４４３。\n\n密钥每９０天轮换一次。",
    "工作/报销记录.md": "# 三月报销记录\n\n- 3月5日 打车去机场 123元\n- 3月7日 客户晚餐 860元（发票抬头写公司全称）\n"
    "- 3月12日 高铁上海—杭州 73元\n\n报销单已经在飞书上提交，财务说月底前到账。",
    "工作/面试记录 陈静.md": "# 面试记录：陈静（Chen Jing）\n\n应聘后端工程师，五年 Java 经验，做过支付系统。"
    "系统设计题答得不错，讲了幂等和对账。英语口语一般。\n\n结论：建议二面，让张伟问一下分布式事务。",
    "学习/英语口语.md": "# 英语口语练习\n\nUseful phrases for meetings:\n\n- Let's circle back on this. 这个我们稍后再讨论。\n"
    "- Could you elaborate on that? 能展开说说吗？\n- I'm on the same page. 我同意。\n\n"
    "每天早上跟读十五分钟，用的是 Duolingo 和 BBC 6 Minute English。",
    "生活/装修预算.md": "# 新房装修预算\n\n总预算20万。硬装12万，家具和家电8万。沙发和书柜在宜家（IKEA）买，"
    "冰箱选了海尔的对开门。\n\n厨房瓷砖还没定，周六去建材市场看看。",
    "旅行/云南旅行计划.md": "# 云南旅行计划（五一）\n\n2024年5月1日出发，先到昆明，坐高铁去大理，住洱海边的民宿。"
    "第三天去丽江古城，第四天玉龙雪山（要提前买门票和氧气瓶）。",
    "健康/跑步记录.md": "# 跑步记录\n\n三月一共跑了68公里。周日的半程马拉松跑了1小时58分，破了个人纪录。\n\n"
    "用的是 Garmin 手表记配速，鞋子是亚瑟士的 Nimbus。",
    "工作/OKR 2024 Q2.md": "# OKR 2024 Q2\n\n**O1：搜索体验明显变好**\n\n- KR1：搜索接口的P99延迟从800ms降到300ms\n"
    "- KR2：零结果率从12%降到5%以下\n\n**O2：团队成长**\n\n- KR1：每人至少做一次技术分享",
    "技术/Kubernetes 排错.md": "# Kubernetes 排错记录\n\nPod 一直是 ImagePullBackOff。原因：私有镜像仓库的 secret "
    "没有配到新的 namespace。\n\n```bash\n# 把 secret 复制到新的命名空间\nkubectl get secret regcred -o yaml | "
    "kubectl apply -n staging -f -\n```",
    "家庭/妈妈生日.md": "# 妈妈的生日\n\n农历二月初八，今年是公历3月17日。礼物买了小米手环，她可以看步数和心率。"
    "订了外婆家附近的杭帮菜馆，六个人。",
    "工作/周报 第12周.md": "# 周报（第12周）\n\n本周完成：\n\n1. 凤凰计划灰度发布\n2. 修复了导出Excel时中文乱码的问题"
    "（原因是没有加 BOM）\n\n下周计划：重试机制、压测。",
}

QUESTIONS = [
    # (question, the file that should come first)
    ("数据库迁移到 PostgreSQL", "会议/2024-03-14 周会.md"),
    ("张伟负责回滚方案", "会议/2024-03-14 周会.md"),
    ("客户的数据库升级计划", "出差/台北出差.md"),  # the note writes it in Traditional characters
    ("數據庫備份", "scripts/backup_db.py"),  # the script writes it in Simplified ones
    ("红烧牛肉面怎么做", "生活/牛肉麵食譜.md"),
    ("台北夜市", "出差/台北出差.md"),
    ("ＡＰＩ网关", "项目/Phoenix 项目日志.md"),  # full-width where the note is half-width
    ("API 密钥放在哪里", "技术/密钥管理.md"),  # half-width where the note is full-width
    ("测试环境端口 8080", "技术/密钥管理.md"),
    ("打车去机场 １２３元", "工作/报销记录.md"),
    ("凤凰计划", "项目/Phoenix 项目日志.md"),
    ("Project Phoenix 灰度发布", "项目/Phoenix 项目日志.md"),
    ("夜莺告警", "项目/Nightingale 夜莺监控.md"),
    ("陈静的面试", "工作/面试记录 陈静.md"),
    ("Chen Jing interview", "工作/面试记录 陈静.md"),
    ("“想象的共同体”", "读书笔记/人类简史.md"),
    ("黑暗森林 猜疑链", "读书笔记/三体.md"),
    ("dark forest theory in the Three-Body novel", "读书笔记/三体.md"),
    ("主从复制的延迟", "reading/DDIA chapter 5.md"),
    ("2024年3月14日", "日记/2024年3月14日.md"),
    ("上周三去医院体检", "日记/2024年3月18日.md"),
    ("愚人节玩笑", "日记/2024年4月1日.md"),
    ("Garmin手表", "健康/跑步记录.md"),
    ("宜家买沙发", "生活/装修预算.md"),
    ("缓存雪崩怎么解决", "技术/Redis 缓存笔记.md"),
    ("过期时间加随机抖动", "技术/Redis 缓存笔记.md"),
    ("ImagePullBackOff 镜像拉取失败", "技术/Kubernetes 排错.md"),
    ("零结果率", "工作/OKR 2024 Q2.md"),
    ("what gift did I buy for mom's birthday", "家庭/妈妈生日.md"),
    ("导出Excel中文乱码", "工作/周报 第12周.md"),
]


def write_corpus(root: Path) -> None:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    corpus_questions.main(__doc__, "chinese-notes", "会议", write_corpus, QUESTIONS)

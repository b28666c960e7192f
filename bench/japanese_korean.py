"""A Japanese and Korean user's questions about their own notes: where the file asked about ranks, per mode.

Writes its own corpus (in --data, else a temporary folder): 52 notes and code files in Japanese (kanji, kana,
full-width and half-width forms, 「」 quotes, dates as 2024年3月14日 and 令和6年3月14日, long katakana loanwords written with and
without their ー), in Korean (Hangul words with their particles: 검색을, 검색은, 검색에서) and mixed with English,
code with Japanese comments, and two PDFs (a Japanese and a Korean paper, drawn by tests/test_pdf_parser.py's
``cjk_pages``, no font file needed). Indexes it through the real pipeline (bench/quality.py's ``build_index``),
asks each of its questions in keyword, semantic and hybrid search, and prints, per mode, how often the file asked
about came first, among the first five, the mean reciprocal rank of its first hit (0 past the tenth), and how
many query words the spelling note named as held nowhere.

    .venv/bin/python bench/japanese_korean.py [--home DIR] [--data DIR] [--modes keyword,semantic,hybrid] [-v]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import corpus_questions  # noqa: E402
from tests.test_pdf_parser import cjk_pages  # noqa: E402

NOTES = {
    "ja/メモ/大事なこと.md": "# 毎朝の習慣\n\n大事なことを三つだけ書き出してから仕事を始める。",
    "ko/여행/가을 단풍.md": "# 설악산 단풍\n\n10월에 가을 단풍을 보러 설악산에 간다. 숙소는 속초에 예약했다.",
    # Japanese
    "ja/仕事/サーバー移行計画.md": "# サーバー移行計画\n\nオンプレミスのサーバーをクラウドへ移行する。対象はWebサーバー3台とデータベースサーバー1台。"
    "\n\n## スケジュール\n\n- 2024年4月上旬：検証環境を構築\n- 2024年5月：本番切り替え（深夜メンテナンス）\n\n"
    "ロードバランサーの設定を先に移し、DNSのTTLを300秒に下げておくこと。",
    "ja/議事録/2024-03-14 定例会議.md": "# 定例会議 令和6年3月14日\n\n参加者：田中、佐藤、鈴木\n\n## 議題\n\n"
    "1. 新人研修のスケジュール\n2. 四半期の売上報告\n\n## 決定事項\n\n「次回までに研修資料を作成する」と田中さんが担当。"
    "売上は前年比112%で目標を達成した。",
    "ja/議事録/2024-04-02 キックオフ.md": "# プロジェクト・キックオフ\n\n2024年4月2日（火）10:00〜11:30\n\n"
    "新しい在庫管理システムの開発を開始する。スクラムで2週間スプリント。プロダクトオーナーは鈴木さん。\n\n"
    "リスク：外部APIの仕様がまだ決まっていない。",
    "ja/日記/2024年3月20日.md": "# 2024年3月20日（水）春分の日\n\n朝から雨。図書館で村上春樹の本を借りた。"
    "夜は家族で手巻き寿司。久しぶりにゆっくりできた一日だった。",
    "ja/日記/2024年3月21日.md": "# 2024年3月21日（木）\n\n花粉症がひどい。薬を飲んで出勤。昼休みに桜のつぼみを見つけた。"
    "帰りにドラッグストアで目薬を買う。",
    "ja/レシピ/カレーライス.md": "# カレーライス\n\n## 材料（4人分）\n\n- 玉ねぎ 2個\n- にんじん 1本\n- じゃがいも 3個\n"
    "- 豚肉 300g\n- カレールー 1箱\n\n## 作り方\n\n玉ねぎを飴色になるまで炒めるのがコツ。隠し味にりんごのすりおろしを入れる。",
    "ja/レシピ/味噌汁.md": "# 味噌汁の基本\n\nだしは昆布とかつお節でとる。豆腐とわかめを入れ、火を止めてから味噌を溶く。"
    "沸騰させると風味が飛ぶので注意。",
    "ja/読書メモ/ノルウェイの森.md": "# 読書メモ『ノルウェイの森』\n\n著者：村上春樹\n\n「死は生の対極としてではなく、"
    "その一部として存在している」という一節が印象に残った。主人公ワタナベと直子、緑の関係が物語の軸。",
    "ja/技術/ｻｰﾊﾞｰ監視メモ.md": "# ｻｰﾊﾞｰ監視メモ\n\n古い社内Wikiからコピーしたメモ。ﾒﾓﾘ使用量が80%を超えたらｱﾗｰﾄを出す。"
    "ﾃﾞｨｽｸ容量はｸﾞﾗﾌｧﾅで確認する。ﾌﾟﾛﾒﾃｳｽのｴｸｽﾎﾟｰﾀｰを各ﾎｽﾄに入れる。",
    "ja/技術/全文検索インデックス.md": "# 全文検索インデックスの設計\n\n日本語は単語の区切りがないので、形態素解析（MeCab）"
    "かN-gramで分割する。N-gramは漏れが少ないが、インデックスが大きくなる。\n\n転置インデックスの更新はバッチで行う。",
    "ja/技術/プリンタ設定.md": "# プリンタ設定\n\n3階のプリンタはIPアドレス192.168.1.50。ドライバはメーカーのサイトから"
    "ダウンロードする。両面印刷がデフォルトになっていないので注意。",
    "ja/技術/コンピュータ買い替え.md": "# コンピュータ買い替え検討\n\nノートパソコンのメモリを16GBから32GBにしたい。"
    "候補はThinkPadとMacBook Air。予算は20万円まで。",
    "ja/技術/Dockerの使い方.md": "# Dockerの使い方\n\nコンテナを起動する：`docker run -d -p 8080:80 nginx`\n\n"
    "イメージの削除は`docker rmi`。ボリュームをマウントするときは絶対パスで指定すること。",
    "ja/技術/パフォーマンスチューニング.md": "# パフォーマンスチューニング\n\nレスポンスタイムが遅いエンドポイントを"
    "プロファイリングした。N+1クエリが原因だったので、インデックスを追加してキャッシュを導入した。平均応答時間が"
    "850ミリ秒から120ミリ秒に改善。",
    "ja/技術/セキュリティ対策.md": "# セキュリティ対策\n\nパスワードはbcryptでハッシュ化する。二要素認証を必須にする。"
    "脆弱性診断は年に2回、外部の業者に依頼する。",
    "ja/仕事/ユーザインタビュー.md": "# ユーザインタビューのまとめ\n\n5人のユーザに話を聞いた。検索機能が使いにくいという"
    "意見が多かった。特に、全角と半角の違いで結果が変わるのが不満とのこと。",
    "ja/旅行/京都旅行.md": "# 京都旅行（2023年11月）\n\n清水寺と伏見稲荷大社を回った。紅葉がきれいだった。"
    "「鍵善良房」でくずきりを食べた。嵐山の竹林は朝早く行くと人が少ない。",
    "ja/家計簿/2024年3月.md": "# 家計簿 2024年3月\n\n食費 42,300円、光熱費 12,800円、通信費 8,900円。"
    "今月は外食が多かったので来月は自炊を増やす。",
    "ja/勉強/TOEIC対策.md": "# TOEIC対策\n\n目標スコアは800点。毎朝30分リスニングの練習をする。"
    "単語帳は『金のフレーズ』を使用。",
    "ja/健康/ランニング記録.md": "# ランニング記録\n\n3月は合計で85キロ走った。ハーフマラソンのタイムは1時間52分。"
    "膝が痛くなったらストレッチを増やす。",
    "ja/仕事/エラーログ調査.md": "# エラーログ調査\n\n本番環境でタイムアウトエラーが多発。ログを見るとデータベースの"
    "コネクションプールが枯渇していた。プールサイズを10から30に増やして解決。",
    "ja/仕事/年末調整.md": "# 年末調整の手続き\n\n令和5年分の年末調整。保険料控除証明書と住宅ローン控除の書類を"
    "総務に提出する。締め切りは11月30日。",
    "ja/日報/2023-03-13.md": "# 日報\n\n今日の作業：ログイン画面のバグ修正。明日はテストを書く。",
    "ja/日報/2024-03-13.md": "# 日報\n\n今日の作業：請求書PDFの出力機能を実装。レビュー待ち。",
    # Korean
    "ko/개발/검색엔진 구축.md": "# 검색엔진 구축 메모\n\n한국어 검색에서 가장 어려운 점은 조사 처리다. 사용자가 검색을 하면"
    " 형태소 분석기로 어간을 추출한다. 검색은 Elasticsearch의 nori 분석기를 사용했다.\n\n색인 속도는 초당 2,000건.",
    "ko/개발/데이터베이스 백업.md": "# 데이터베이스 백업 방법\n\n매일 새벽 3시에 데이터베이스를 백업한다. 백업 파일은 S3에 "
    "30일 동안 보관한다. 복구 테스트는 한 달에 한 번 실시한다.",
    "ko/개발/쿠버네티스 배포.md": "# 쿠버네티스 배포 절차\n\n이미지를 빌드한 후 레지스트리에 푸시한다. 그 다음 헬름 차트의 "
    "버전을 올리고 배포한다. 롤백은 helm rollback 명령어로 한다.",
    "ko/개발/캐시 전략.md": "# 캐시 전략\n\n자주 조회되는 데이터는 Redis에 캐시한다. 캐시의 만료 시간은 10분으로 설정했다. "
    "캐시를 무효화하는 시점이 가장 중요하다.",
    "ko/회의록/2024-03-15 주간회의.md": "# 주간회의 2024년 3월 15일\n\n참석자: 김민수, 이지은, 박서준\n\n"
    "## 논의 사항\n\n신규 서비스 출시 일정을 4월 말로 연기하기로 했다. 디자인 시안은 다음 주까지 완성한다.",
    "ko/회의록/2024-03-22 주간회의.md": "# 주간회의 2024년 3월 22일\n\n참석자: 김민수, 이지은\n\n"
    "예산 검토 결과 마케팅 비용을 20% 줄이기로 결정했다.",
    "ko/회의록/디자인 리뷰.md": "# 디자인 리뷰\n\n2024년 3월 8일 오후 2시. 메인 화면의 버튼 색상을 파란색으로 통일하기로 했다. "
    "아이콘은 외주 업체에 맡긴다.",
    "ko/회의록/디자인 리뷰 2차.md": "# 디자인 리뷰 (2차)\n\n2024년 3월 29일. 모바일 화면의 글자 크기가 너무 작다는 의견. "
    "다크 모드는 다음 분기로 미룬다.",
    "ko/요리/김치찌개.md": "# 김치찌개 만드는 법\n\n잘 익은 김치와 돼지고기를 먼저 볶는다. 물을 붓고 두부와 대파를 넣어 "
    "20분 끓인다. 고춧가루는 한 숟가락.",
    "ko/요리/된장찌개.md": "# 된장찌개\n\n멸치 육수에 된장을 풀고 애호박, 감자, 양파를 넣는다. 마지막에 청양고추를 넣으면 "
    "칼칼하다.",
    "ko/여행/제주도 여행.md": "# 제주도 여행 계획\n\n3박 4일 일정. 첫날은 성산일출봉, 둘째 날은 한라산 등반. 렌터카를 "
    "미리 예약해야 한다. 흑돼지 맛집 목록도 정리했다.",
    "ko/독서/채식주의자.md": "# 독서 기록: 채식주의자\n\n한강의 소설. 주인공 영혜가 어느 날 고기를 먹지 않겠다고 선언하면서 "
    "가족과의 갈등이 시작된다. 세 편의 연작으로 구성되어 있다.",
    "ko/일기/2024년 3월 20일.md": "# 2024년 3월 20일 수요일\n\n오늘은 회사에서 발표를 했다. 긴장했지만 잘 끝났다. 저녁에는 "
    "친구와 삼겹살을 먹었다.",
    "ko/건강/수면 습관.md": "# 수면 습관 개선\n\n잠들기 한 시간 전에는 스마트폰을 보지 않는다. 카페인은 오후 2시 이후에 "
    "마시지 않는다. 평균 수면 시간이 6시간에서 7시간 반으로 늘었다.",
    "ko/공부/영어 공부.md": "# 영어 공부 계획\n\n매일 아침 팟캐스트를 듣고 문장 다섯 개를 외운다. 주말에는 미드를 "
    "자막 없이 본다.",
    "ko/독서/독서 목표.md": "# 독서 목표\n\n올해 목표는 한 달에 책 두 권. 지금까지 읽은 책은 일곱 권이다. 다음 달에는 "
    "소설보다 에세이를 더 읽고 싶다.",
    "ko/가계부/2024년 3월.md": "# 가계부 3월\n\n식비 45만 원, 교통비 8만 원, 통신비 6만 원. 커피값을 줄여야 한다.",
    "ko/개발/로그 수집.md": "# 로그 수집 파이프라인\n\n애플리케이션 로그는 Fluent Bit으로 수집하여 OpenSearch로 보낸다. "
    "로그에서 에러를 검색할 때는 trace id로 필터링한다.",
    "ko/개발/코드 리뷰 규칙.md": "# 코드 리뷰 규칙\n\nPR은 400줄을 넘지 않게 한다. 리뷰어는 24시간 안에 답변한다. "
    "테스트가 없는 변경은 승인하지 않는다.",
    # mixed
    "mixed/RAG pipeline メモ.md": "# RAG pipeline メモ\n\nRetrieval は BM25 とベクトル検索のハイブリッド。"
    "chunk size は512トークン、overlap は64。Reranker を入れると精度が上がるが、レイテンシが2倍になる。",
    "mixed/Tokyo trip packing list.md": "# Tokyo trip packing list\n\n- Suica カード（チャージ済み）\n- 変換プラグ"
    "（Type A）\n- 折りたたみ傘\n- passport, JR Pass の引換証\n\nHotel: 新宿 near the south exit.",
    "mixed/Seoul office setup.md": "# Seoul office setup\n\n사무실 인터넷은 KT 기가 인터넷. Wi-Fi 비밀번호는 "
    "관리팀에 문의. The printer on the 5th floor needs the 드라이버 from the vendor site.",
    "mixed/weekly review W11.md": "# Weekly review 2024-W11\n\nShipped the 検索 feature for the Japanese site. "
    "Next: 한국어 검색 지원 (Korean search support), then fix the 全角/半角 normalisation bug.",
    "mixed/meeting with Tanaka-san.md": "# Meeting with Tanaka-san\n\nDiscussed the invoice format. 請求書は月末締め"
    "翌月末払い。They want PDF invoices with 印鑑 (company seal) image.",
    "mixed/Korean vocabulary.md": "# Korean vocabulary\n\n- 안녕하세요 — hello\n- 감사합니다 — thank you\n"
    "- 얼마예요? — how much is it?\n- 화장실이 어디예요? — where is the restroom?",
    # code with Japanese comments
    "code/fetch_retry.py": "\"\"\"HTTP クライアントのリトライ処理。\"\"\"\nimport time\n\nimport requests\n\n"
    "MAX_RETRIES = 5  # リトライ回数の上限\n\n\ndef fetch(url: str) -> bytes:\n"
    "    # 指数バックオフで再試行する（1秒、2秒、4秒…）\n    for attempt in range(MAX_RETRIES):\n"
    "        try:\n            return requests.get(url, timeout=10).content\n"
    "        except requests.Timeout:\n            time.sleep(2 ** attempt)\n"
    "    raise RuntimeError('リトライ上限に達しました')\n",
    "code/wareki.py": "\"\"\"西暦と和暦の変換。\"\"\"\n\nERAS = [(2019, '令和'), (1989, '平成'), (1926, '昭和')]\n\n\n"
    "def to_wareki(year: int) -> str:\n    # 元号の開始年から数える（元年は1年目）\n    for start, name in ERAS:\n"
    "        if year >= start:\n            return f'{name}{year - start + 1}年'\n"
    "    raise ValueError('昭和より前は未対応')\n",
    "code/hangul.py": "\"\"\"한글 자모 분리.\"\"\"\n\nBASE = 0xAC00\n\n\ndef split_jamo(ch: str) -> tuple[int, int, int]:\n"
    "    # 초성, 중성, 종성으로 분리한다\n    code = ord(ch) - BASE\n"
    "    return code // 588, (code % 588) // 28, code % 28\n",
}

# Each PDF: its pages, each a list of lines as drawn (wrapped at a fixed width, as a PDF's are).
PDFS = {
    "papers/日本語全文検索におけるN-gram索引の評価.pdf": [
        ["日本語全文検索におけるN-gram索引の評価", "山田太郎 東京大学 情報理工学系研究科", "概要",
         "本研究では、日本語の全文検索において、形態素解析による索引とバイグラム", "索引を比較した。バイグラム索引は未知語や固有名詞の"
         "検索漏れが少な", "いが、索引サイズが約2.4倍になる。実験にはWikipedia日本語版の", "記事10万件を用いた。"],
        ["実験結果", "再現率はバイグラム索引が0.91、形態素索引が0.84であった。一方で、", "適合率は形態素索引が高く、"
         "「東京都」で検索すると「京都」を含む", "文書が誤って上位に来る問題がバイグラムでは見られた。"],
    ],
    "papers/한국어 형태소 분석기 비교.pdf": [
        ["한국어 형태소 분석기 비교 연구", "김영희 서울대학교 컴퓨터공학부", "초록",
         "본 연구에서는 한국어 검색 시스템을 위한 형태소 분석기 세 가지를 비교하였다.", "Mecab-ko, Okt, Kkma를 대상으로 "
         "분석 속도와 정확도를 측정하였다."],
        ["실험 결과", "Mecab-ko의 분석 속도가 가장 빨랐으며, 초당 약 5만 어절을 처리하였다.", "정확도는 Kkma가 가장 높았으나 "
         "속도는 Mecab-ko의 20분의 1이었다."],
    ],
}

QUESTIONS = [
    # (question, the file that should come first)
    ("サーバー移行のスケジュール", "ja/仕事/サーバー移行計画.md"),
    ("サーバ移行", "ja/仕事/サーバー移行計画.md"),
    ("サーバーのメモリ使用量のアラート", "ja/技術/ｻｰﾊﾞｰ監視メモ.md"),
    ("ｻｰﾊﾞｰ監視", "ja/技術/ｻｰﾊﾞｰ監視メモ.md"),
    ("プリンターのIPアドレス", "ja/技術/プリンタ設定.md"),
    ("コンピューターの買い替え", "ja/技術/コンピュータ買い替え.md"),
    ("ユーザーインタビュー", "ja/仕事/ユーザインタビュー.md"),
    ("令和6年3月14日の会議", "ja/議事録/2024-03-14 定例会議.md"),
    ("2024年3月14日 定例会議", "ja/議事録/2024-03-14 定例会議.md"),
    ("3月20日の日記", "ja/日記/2024年3月20日.md"),
    ("キックオフはいつ", "ja/議事録/2024-04-02 キックオフ.md"),
    ("カレーの隠し味", "ja/レシピ/カレーライス.md"),
    ("味噌汁の作り方", "ja/レシピ/味噌汁.md"),
    ("ノルウェイの森の感想", "ja/読書メモ/ノルウェイの森.md"),
    ("「死は生の対極としてではなく」", "ja/読書メモ/ノルウェイの森.md"),
    ("形態素解析とN-gram", "ja/技術/全文検索インデックス.md"),
    ("コネクションプールが枯渇", "ja/仕事/エラーログ調査.md"),
    ("年末調整の締め切り", "ja/仕事/年末調整.md"),
    ("リトライ回数の上限", "code/fetch_retry.py"),
    ("和暦に変換する関数", "code/wareki.py"),
    ("バイグラム索引の再現率", "papers/日本語全文検索におけるN-gram索引の評価.pdf"),
    ("검색 조사 처리", "ko/개발/검색엔진 구축.md"),
    ("검색엔진", "ko/개발/검색엔진 구축.md"),
    ("데이터베이스 백업", "ko/개발/데이터베이스 백업.md"),
    ("백업은 어디에 보관해", "ko/개발/데이터베이스 백업.md"),
    ("캐시 만료 시간", "ko/개발/캐시 전략.md"),
    ("쿠버네티스 롤백", "ko/개발/쿠버네티스 배포.md"),
    ("캐시는 언제 무효화해", "ko/개발/캐시 전략.md"),
    ("로그에서 에러 검색은 어떻게", "ko/개발/로그 수집.md"),
    ("2024년 3월 15일 회의", "ko/회의록/2024-03-15 주간회의.md"),
    ("마케팅 비용 절감 결정", "ko/회의록/2024-03-22 주간회의.md"),
    ("김치찌개 레시피", "ko/요리/김치찌개.md"),
    ("한라산 등반", "ko/여행/제주도 여행.md"),
    ("채식주의자 줄거리", "ko/독서/채식주의자.md"),
    ("수면 시간을 늘리는 방법", "ko/건강/수면 습관.md"),
    ("형태소 분석기 속도 비교", "papers/한국어 형태소 분석기 비교.pdf"),
    ("초성 중성 종성 분리", "code/hangul.py"),
    ("reranker latency トレードオフ", "mixed/RAG pipeline メモ.md"),
    ("東京 packing list", "mixed/Tokyo trip packing list.md"),
    ("令和5年3月13日の日報", "ja/日報/2023-03-13.md"),
    ("2024-03-08 디자인 리뷰", "ko/회의록/디자인 리뷰.md"),
    ("design review on March 29", "ko/회의록/디자인 리뷰 2차.md"),
    ("請求書の出力はいつ実装した", "ja/日報/2024-03-13.md"),
    ("和暦の変換はどうやって", "code/wareki.py"),
    ("와이파이 비밀번호는 어디에 물어봐", "mixed/Seoul office setup.md"),
    ("책을 몇 권 읽었지", "ko/독서/독서 목표.md"),
    ("서울 사무실 인터넷", "mixed/Seoul office setup.md"),
    ("請求書の支払い条件", "mixed/meeting with Tanaka-san.md"),
    ("大事なことは", "ja/メモ/大事なこと.md"),
    ("가을 여행", "ko/여행/가을 단풍.md"),
]


def write_corpus(root: Path) -> None:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n", encoding="utf-8")
    for rel, pages in PDFS.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(cjk_pages(pages))


if __name__ == "__main__":
    corpus_questions.main(__doc__, "japanese-korean", "ja", write_corpus, QUESTIONS)

"""One short passage in many languages, for the token tax on the Compare page.

Written for BPE Lab (not taken from any corpus or website): an everyday English passage
of three sentences, rendered into each language as a speaker would say it, in the
language's usual script and punctuation. The passages are parallel in meaning, not
word for word. Plain data, no Streamlit.

``PASSAGES``: language -> (script, passage), English first (the reference).
"""

from __future__ import annotations

REFERENCE = "English"

PASSAGES: dict[str, tuple[str, str]] = {
    "English": (
        "Latin",
        "The weather is nice today. I am going to the market to buy bread, apples and milk. "
        "In the evening I will read a book with my family.",
    ),
    "German": (
        "Latin",
        "Heute ist das Wetter schön. Ich gehe auf den Markt, um Brot, Äpfel und Milch zu kaufen. "
        "Am Abend werde ich mit meiner Familie ein Buch lesen.",
    ),
    "French": (
        "Latin",
        "Il fait beau aujourd'hui. Je vais au marché pour acheter du pain, des pommes et du lait. "
        "Ce soir, je lirai un livre avec ma famille.",
    ),
    "Spanish": (
        "Latin",
        "Hoy hace buen tiempo. Voy al mercado a comprar pan, manzanas y leche. Por la noche leeré un libro con mi familia.",
    ),
    "Turkish": (
        "Latin",
        "Bugün hava güzel. Ekmek, elma ve süt almak için pazara gidiyorum. Akşam ailemle birlikte bir kitap okuyacağım.",
    ),
    "Vietnamese": (
        "Latin",
        "Hôm nay thời tiết đẹp. Tôi đi chợ để mua bánh mì, táo và sữa. Buổi tối tôi sẽ đọc sách cùng gia đình.",
    ),
    "Swahili": (
        "Latin",
        "Leo hali ya hewa ni nzuri. Ninaenda sokoni kununua mkate, matufaha na maziwa. "
        "Jioni nitasoma kitabu pamoja na familia yangu.",
    ),
    "Russian": (
        "Cyrillic",
        "Сегодня хорошая погода. Я иду на рынок, чтобы купить хлеб, яблоки и молоко. "
        "Вечером я буду читать книгу вместе с семьёй.",
    ),
    "Greek": (
        "Greek",
        "Σήμερα ο καιρός είναι ωραίος. Πηγαίνω στην αγορά για να αγοράσω ψωμί, μήλα και γάλα. "
        "Το βράδυ θα διαβάσω ένα βιβλίο με την οικογένειά μου.",
    ),
    "Armenian": (
        "Armenian",
        "Այսօր եղանակը լավն է։ Գնում եմ շուկա՝ հաց, խնձոր և կաթ գնելու։ Երեկոյան ընտանիքիս հետ գիրք կկարդամ։",
    ),
    "Georgian": (
        "Georgian",
        "დღეს კარგი ამინდია. მივდივარ ბაზარში პურის, ვაშლისა და რძის საყიდლად. საღამოს ოჯახთან ერთად წიგნს წავიკითხავ.",
    ),
    "Arabic": (
        "Arabic",
        "الطقس جميل اليوم. أذهب إلى السوق لأشتري الخبز والتفاح والحليب. في المساء سأقرأ كتابًا مع عائلتي.",
    ),
    "Persian": (
        "Arabic",
        "امروز هوا خوب است. به بازار می‌روم تا نان، سیب و شیر بخرم. شب با خانواده‌ام کتاب می‌خوانم.",
    ),
    "Hebrew": (
        "Hebrew",
        "מזג האוויר נעים היום. אני הולך לשוק כדי לקנות לחם, תפוחים וחלב. בערב אקרא ספר עם המשפחה שלי.",
    ),
    "Amharic": (
        "Ge'ez",
        "ዛሬ አየሩ ጥሩ ነው። ዳቦ፣ ፖም እና ወተት ለመግዛት ወደ ገበያ እሄዳለሁ። ማታ ከቤተሰቤ ጋር መጽሐፍ አነባለሁ።",
    ),
    "Hindi": (
        "Devanagari",
        "आज मौसम अच्छा है। मैं रोटी, सेब और दूध ख़रीदने बाज़ार जा रहा हूँ। शाम को मैं अपने परिवार के साथ एक किताब पढ़ूँगा।",
    ),
    "Bengali": (
        "Bengali",
        "আজ আবহাওয়া ভালো। আমি রুটি, আপেল আর দুধ কিনতে বাজারে যাচ্ছি। সন্ধ্যায় আমি পরিবারের সঙ্গে একটা বই পড়ব।",
    ),
    "Tamil": (
        "Tamil",
        "இன்று வானிலை நன்றாக இருக்கிறது. ரொட்டி, ஆப்பிள், பால் வாங்க நான் சந்தைக்குப் போகிறேன். மாலையில் என் குடும்பத்துடன் ஒரு புத்தகம் படிப்பேன்.",
    ),
    "Thai": (
        "Thai",
        "วันนี้อากาศดี ฉันจะไปตลาดเพื่อซื้อขนมปัง แอปเปิล และนม ตอนเย็นฉันจะอ่านหนังสือกับครอบครัว",
    ),
    "Chinese": (
        "Han",
        "今天天气很好。我要去市场买面包、苹果和牛奶。晚上我会和家人一起看书。",
    ),
    "Japanese": (
        "Kanji and kana",
        "今日はいい天気です。パンとりんごと牛乳を買いに市場へ行きます。夜は家族と一緒に本を読みます。",
    ),
    "Korean": (
        "Hangul",
        "오늘은 날씨가 좋습니다. 빵, 사과, 우유를 사러 시장에 갑니다. 저녁에는 가족과 함께 책을 읽을 것입니다.",
    ),
}


def texts() -> dict[str, str]:
    """``{language: passage}``, English first.

    >>> list(texts())[:3], len(texts()) >= 15
    (['English', 'German', 'French'], True)
    """
    return {lang: passage for lang, (_, passage) in PASSAGES.items()}


def scripts() -> dict[str, str]:
    """``{language: script}``.

    >>> scripts()["Hindi"]
    'Devanagari'
    """
    return {lang: script for lang, (script, _) in PASSAGES.items()}

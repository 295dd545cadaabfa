package synth

// Vocabularies of the synthetic web. Each theme has its own word list in both
// languages; pages draw mostly from their theme, some from the shared
// background list and a little from one other theme. Multi-word English
// entries are kept together so that phrases such as "neural network" really
// occur in the text and phrase keywords of the topic file can match.
//
// Some words deliberately appear in two themes ("training" in machine learning
// and football, "hedge" in finance and gardening, "model" near "precision"):
// real vocabularies overlap and a relevance filter should not get a perfectly
// separable corpus.

// theme is one subject of the synthetic web.
type theme struct {
	id       string      // stable identifier written to the manifest
	en, zh   string      // display name
	words    [2][]string // vocabulary per language (langEN, langZH)
	sections []section   // section directories a site of this theme may have
}

// section is a directory of a site, with its display names.
type section struct {
	slug   string
	en, zh string
}

// Language indices into theme.words.
const (
	langEN = 0
	langZH = 1
)

// TargetTheme is the identifier of the target topic. Pages of this theme are
// the targets of the synthetic web.
const TargetTheme = "machine-learning"

// themes lists the target theme first (index 0), then the off-topic themes.
var themes = []theme{
	{
		id: TargetTheme, en: "Machine learning", zh: "机器学习",
		words: [2][]string{{
			"machine learning", "neural network", "neural networks", "training", "model", "models",
			"dataset", "datasets", "gradient", "gradient descent", "classification", "regression",
			"deep learning", "backpropagation", "loss function", "optimizer", "learning rate",
			"overfitting", "regularization", "feature", "features", "labels", "supervised learning",
			"unsupervised learning", "reinforcement learning", "transformer", "attention", "embeddings",
			"convolutional", "recurrent", "hidden layer", "layers", "activation function", "softmax",
			"mini-batch", "epoch", "validation set", "test set", "accuracy", "precision", "recall",
			"inference", "weights", "parameters", "hyperparameters", "clustering", "decision tree",
			"random forest", "support vector machine", "logistic regression", "cross-validation",
			"benchmark", "GPU", "tensor", "autoencoder", "generative model", "language model",
			"fine-tuning", "dropout", "classifier", "prediction", "algorithm",
		}, {
			"机器学习", "神经网络", "深度学习", "训练", "模型", "数据集", "梯度", "梯度下降", "分类",
			"回归", "反向传播", "损失函数", "优化器", "学习率", "过拟合", "正则化", "特征", "标签",
			"监督学习", "无监督学习", "强化学习", "注意力机制", "词嵌入", "卷积", "卷积神经网络",
			"循环神经网络", "激活函数", "批量", "迭代", "验证集", "测试集", "准确率", "召回率", "推理",
			"权重", "参数", "超参数", "聚类", "决策树", "随机森林", "支持向量机", "逻辑回归", "交叉验证",
			"基准测试", "张量", "自编码器", "生成模型", "语言模型", "微调", "分类器", "预测", "算法",
			"人工智能", "样本", "向量", "特征工程", "损失", "收敛", "显卡", "神经元",
		}},
		sections: []section{
			{"models", "Models", "模型"}, {"training", "Training", "训练"},
			{"datasets", "Datasets", "数据集"}, {"research", "Research", "研究"},
			{"tutorials", "Tutorials", "教程"}, {"deep-learning", "Deep learning", "深度学习"},
		},
	},
	{
		id: "cooking", en: "Cooking", zh: "烹饪",
		words: [2][]string{{
			"recipe", "recipes", "cooking", "kitchen", "oven", "bake", "baking", "flour", "butter",
			"sugar", "salt", "garlic", "onion", "tomato", "sauce", "soup", "pasta", "rice", "noodles",
			"chicken", "beef", "pork", "vegetables", "spices", "pepper", "ginger", "roast", "fry",
			"boil", "simmer", "stir", "chop", "knife", "frying pan", "pot", "dough", "bread", "cake",
			"dessert", "chocolate", "cream", "cheese", "eggs", "milk", "olive oil", "vinegar", "flavor",
			"taste", "dinner", "lunch", "breakfast", "chef", "ingredients", "grill", "seasoning",
			"marinade", "delicious", "dumplings", "tofu", "soy sauce",
		}, {
			"烹饪", "食谱", "厨房", "烤箱", "烘焙", "面粉", "黄油", "白糖", "食盐", "大蒜", "洋葱", "番茄",
			"酱汁", "汤", "面条", "米饭", "鸡肉", "牛肉", "猪肉", "蔬菜", "香料", "胡椒", "生姜", "烧烤",
			"油炸", "炖", "翻炒", "切菜", "菜刀", "炒锅", "面团", "面包", "蛋糕", "甜点", "巧克力", "奶油",
			"奶酪", "鸡蛋", "牛奶", "橄榄油", "醋", "味道", "口感", "晚餐", "午餐", "早餐", "厨师", "食材",
			"调料", "腌制", "美味", "家常菜", "火候", "蒸", "饺子", "豆腐", "酱油", "红烧", "小吃", "煲汤",
		}},
		sections: []section{
			{"recipes", "Recipes", "食谱"}, {"baking", "Baking", "烘焙"}, {"kitchen", "Kitchen", "厨房"},
			{"cuisine", "Cuisine", "美食"}, {"desserts", "Desserts", "甜点"},
		},
	},
	{
		id: "football", en: "Football", zh: "足球",
		words: [2][]string{{
			"football", "soccer", "match", "goal", "goals", "striker", "goalkeeper", "defender",
			"midfielder", "coach", "team", "league", "season", "stadium", "fans", "penalty", "free kick",
			"corner", "referee", "offside", "tackle", "pass", "dribble", "header", "championship", "cup",
			"final", "transfer", "club", "tactics", "formation", "derby", "victory", "defeat", "draw",
			"score", "assist", "captain", "substitute", "injury", "yellow card", "red card", "half time",
			"kickoff", "pitch", "winger", "trophy", "tournament", "qualifier", "ranking", "supporters",
			"squad", "manager", "World Cup", "Premier League", "champions", "training ground",
			"home game", "away game", "extra time",
		}, {
			"足球", "比赛", "进球", "射门", "前锋", "守门员", "后卫", "中场", "教练", "球队", "联赛", "赛季",
			"球场", "球迷", "点球", "任意球", "角球", "裁判", "越位", "铲球", "传球", "盘带", "头球", "冠军",
			"杯赛", "决赛", "转会", "俱乐部", "球衣", "战术", "阵型", "德比", "胜利", "失利", "平局", "比分",
			"助攻", "队长", "替补", "伤病", "黄牌", "红牌", "半场", "开球", "边锋", "奖杯", "锦标赛",
			"预选赛", "排名", "阵容", "主教练", "世界杯", "英超", "欧冠", "球星", "主场", "客场", "加时赛",
			"绝杀", "积分榜",
		}},
		sections: []section{
			{"matches", "Matches", "比赛"}, {"teams", "Teams", "球队"}, {"players", "Players", "球员"},
			{"league", "League", "联赛"}, {"transfers", "Transfers", "转会"},
		},
	},
	{
		id: "travel", en: "Travel", zh: "旅行",
		words: [2][]string{{
			"travel", "trip", "journey", "destination", "hotel", "hostel", "flight", "airport",
			"passport", "visa", "beach", "island", "mountain", "hiking", "museum", "city", "tour",
			"tourist", "itinerary", "luggage", "backpack", "train station", "sightseeing", "landmark",
			"resort", "booking", "ticket", "road trip", "cruise", "adventure", "culture", "local food",
			"map", "souvenir", "vacation", "holiday", "temple", "old town", "harbor", "sunset", "camping",
			"guesthouse", "check-in", "currency exchange", "jet lag", "border", "coast", "lake", "desert",
			"national park", "scenery", "photography", "travel insurance", "budget travel", "airline",
			"boarding pass", "excursion", "explore", "wanderlust", "day trip",
		}, {
			"旅行", "旅游", "行程", "目的地", "酒店", "青年旅舍", "航班", "机场", "护照", "签证", "海滩",
			"海岛", "山峰", "徒步", "博物馆", "城市", "景点", "游客", "导游", "攻略", "行李", "背包",
			"火车站", "观光", "地标", "度假村", "预订", "门票", "自驾游", "邮轮", "探险", "文化", "当地美食",
			"地图", "纪念品", "假期", "寺庙", "古镇", "港口", "日落", "露营", "民宿", "入住", "换汇", "时差",
			"边境", "海岸", "湖泊", "沙漠", "国家公园", "风景", "摄影", "旅行保险", "穷游", "航空公司",
			"登机牌", "一日游", "探索", "自由行", "签证办理",
		}},
		sections: []section{
			{"destinations", "Destinations", "目的地"}, {"hotels", "Hotels", "酒店"},
			{"guides", "Travel guides", "攻略"}, {"flights", "Flights", "航班"}, {"journals", "Journals", "游记"},
		},
	},
	{
		id: "finance", en: "Finance", zh: "财经",
		words: [2][]string{{
			"finance", "market", "markets", "stock", "stocks", "shares", "bond", "bonds", "investor",
			"investment", "portfolio", "dividend", "interest rate", "inflation", "bank", "banking", "loan",
			"mortgage", "credit", "debt", "tax", "budget", "savings", "pension", "fund", "mutual fund",
			"index fund", "equity", "valuation", "earnings", "revenue", "profit", "quarterly report",
			"exchange rate", "currency", "central bank", "trading", "broker", "assets", "liability",
			"insurance", "retirement", "wealth", "economy", "recession", "GDP", "cash flow",
			"balance sheet", "IPO", "hedge", "volatility", "commodity", "gold price", "bull market",
			"bear market", "accounting", "financial planning", "capital", "securities", "futures",
		}, {
			"金融", "市场", "股票", "股市", "债券", "投资者", "投资", "投资组合", "分红", "利率", "通货膨胀",
			"银行", "贷款", "房贷", "信用", "债务", "税收", "预算", "储蓄", "养老金", "基金", "指数基金",
			"股权", "估值", "盈利", "营收", "利润", "财报", "汇率", "货币", "央行", "交易", "券商", "资产",
			"负债", "保险", "退休", "财富", "经济", "衰退", "国内生产总值", "现金流", "资产负债表", "上市",
			"对冲", "波动", "大宗商品", "金价", "牛市", "熊市", "会计", "理财", "资本", "证券", "期货",
			"外汇", "涨停", "市值", "收益率", "财经",
		}},
		sections: []section{
			{"markets", "Markets", "市场"}, {"stocks", "Stocks", "股票"}, {"banking", "Banking", "银行"},
			{"investing", "Investing", "投资"}, {"tax", "Tax", "税务"},
		},
	},
	{
		id: "gardening", en: "Gardening", zh: "园艺",
		words: [2][]string{{
			"garden", "gardening", "plant", "plants", "flower", "flowers", "seeds", "soil", "compost",
			"fertilizer", "watering", "pruning", "roses", "tulips", "tomato plants", "vegetable garden",
			"herbs", "lawn", "mowing", "shovel", "rake", "hose", "greenhouse", "flower pots", "mulch",
			"weeds", "weeding", "pests", "aphids", "bloom", "blossom", "sunlight", "shade", "perennial",
			"annual", "shrub", "hedge", "tree", "leaves", "roots", "bulbs", "germination", "seedling",
			"harvest", "orchard", "backyard", "raised bed", "irrigation", "organic", "pollination",
			"bees", "cuttings", "transplant", "trowel", "gardener", "landscape", "spring planting",
			"succulents", "houseplants", "grafting",
		}, {
			"园艺", "花园", "植物", "花卉", "鲜花", "种子", "土壤", "堆肥", "肥料", "浇水", "修剪", "玫瑰",
			"郁金香", "菜园", "香草", "草坪", "割草", "铁锹", "耙子", "水管", "温室", "花盆", "覆盖物", "杂草",
			"除草", "病虫害", "蚜虫", "开花", "花朵", "阳光", "阴凉", "多年生", "一年生", "灌木", "树篱",
			"树木", "叶子", "根系", "球根", "发芽", "幼苗", "收获", "果园", "后院", "苗床", "灌溉", "有机",
			"授粉", "蜜蜂", "扦插", "移栽", "园丁", "景观", "春播", "盆栽", "多肉", "绿植", "嫁接", "花期",
			"松土",
		}},
		sections: []section{
			{"plants", "Plants", "植物"}, {"flowers", "Flowers", "花卉"},
			{"vegetables", "Vegetables", "蔬菜"}, {"soil", "Soil and compost", "土壤"},
			{"tools", "Garden tools", "园艺工具"},
		},
	},
}

// background is the shared vocabulary every page draws from: function words
// and general words that carry no topic.
var background = [2][]string{{
	"the", "a", "of", "and", "to", "in", "is", "for", "on", "with", "that", "this", "it", "as",
	"are", "was", "by", "from", "at", "about", "more", "new", "many", "some", "people", "time",
	"year", "years", "day", "way", "work", "world", "good", "great", "first", "last", "best",
	"simple", "important", "example", "information", "article", "page", "home", "today", "week",
	"often", "also", "very", "how", "what", "why", "when", "we", "our", "you", "your", "can",
	"will", "should", "use", "using", "make", "find", "start", "learn", "tips", "ideas",
	"overview", "notes", "story", "news", "update", "part", "small", "large", "common", "easy",
	"better", "every", "other",
}, {
	"我们", "你们", "他们", "这个", "那个", "一个", "一些", "很多", "非常", "可以", "应该", "需要",
	"已经", "开始", "今天", "明天", "时间", "问题", "方法", "内容", "文章", "介绍", "经验", "分享",
	"简单", "重要", "例如", "比如", "通过", "因为", "所以", "但是", "如果", "然后", "最后", "首先",
	"其次", "大家", "朋友", "生活", "工作", "世界", "信息", "新闻", "更新", "部分", "常见", "容易",
	"更好", "每个", "其他", "觉得", "知道", "发现", "使用", "进行", "关于", "看看", "一起", "相关",
}}

// Title patterns. Each takes two theme words (the second may be ignored).
var titlePatterns = [2][]string{{
	"%s and %s", "A guide to %s and %s", "Understanding %s with %s", "%s: notes on %s",
	"Why %s matters for %s", "%s for beginners: %s", "How %s works with %s", "%s in practice: %s",
}, {
	"%s与%s", "%s入门：%s", "浅谈%s和%s", "%s中的%s问题", "如何理解%s与%s", "%s实践：%s",
	"关于%s和%s的几点经验", "%s与%s的常见问题",
}}

// Site name suffixes, combined with a theme word.
var siteSuffixes = [2][]string{
	{"Hub", "Journal", "Notes", "Corner", "Daily", "Review", "World", "Lab", "Times", "Digest"},
	{"网", "之家", "论坛", "天地", "笔记", "在线", "日报", "世界", "频道", "社区"},
}

// Fixed interface strings of the generated pages, per language.
var ui = [2]map[string]string{{
	"home": "Home", "back": "Back to", "related": "Related articles", "sections": "Sections",
	"featured": "Featured", "elsewhere": "Elsewhere on the web", "directory": "Web directory",
	"articles": "Articles", "members": "Members area", "calendar": "Events calendar",
	"session": "Continue your session", "print": "Printer-friendly version", "archive": "Archive",
	"older": "Older posts", "see": "See also", "at": "%s at %s", "blog": "Blog", "more": "Read more",
}, {
	"home": "首页", "back": "返回", "related": "相关文章", "sections": "栏目",
	"featured": "推荐", "elsewhere": "友情链接", "directory": "网站导航",
	"articles": "文章列表", "members": "会员专区", "calendar": "活动日历",
	"session": "继续浏览", "print": "打印版本", "archive": "归档",
	"older": "更早的文章", "see": "另见", "at": "%[2]s的%[1]s", "blog": "博客", "more": "阅读全文",
}}

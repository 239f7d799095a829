package nlp

import (
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kgstudio/kgstudio/extract"
)

// citationRE finds reference markers of encyclopedia text: "[12]",
// "[12-14]", "[6, 7]", "[注 1]" and their full-width forms ("［3］").
var citationRE = regexp.MustCompile(`[\[［]\s*(?:注\s*)?\d{1,4}(?:\s*[-–,，、]\s*\d{1,4})*\s*[\]］]`)

// maskCitations blanks citation markers byte for byte, so offsets stay.
func maskCitations(text string) string {
	if !strings.ContainsAny(text, "[［") {
		return text
	}
	locs := citationRE.FindAllStringIndex(text, -1)
	if locs == nil {
		return text
	}
	b := []byte(text)
	for _, l := range locs {
		for i := l[0]; i < l[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// surnames are common single-character Chinese surnames. Characters that
// are mostly function words (于, 和, 向, 时, 成, 文, 方, 安, 万, 常, 华)
// are left out.
var surnames = runeSet("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾萧肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵钱严覃武戴莫孔汤温康施牛樊葛邢齐易乔伍庞颜倪庄聂章鲁岳翟殷詹欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌毕季裴霍涂苗谷盛翁骆蓝辛管柴鲍喻蒲滕饶艾尤穆卓吉简麦岑甄邝洪")

// compoundSurnames are two-character surnames.
var compoundSurnames = setOf("欧阳", "司马", "上官", "诸葛", "东方", "令狐", "慕容", "皇甫", "尉迟", "夏侯", "司徒", "公孙")

// nameStops are characters that do not occur in a given name: particles,
// numerals and common words that follow a surname-like character.
var nameStops = runeSet("的了在是和与及等也都就被把对从为以于之其而并个们上下中说到后前时年月日将由所有又再已曾不一二三四五六七八九十这那该此每各第片剧影视部作演导饰获奖得首张次届度出入给向让使着过还最很更非人省市县区港台公司集团院节表示生先女士主执担任凭借首期共参加合与同首称称被")

// nonNames are words that open with a surname character but name no one.
var nonNames = setOf("王国", "高度", "周年", "周刊", "周边", "周末", "金马", "金像", "金曲", "金牌", "黄金", "时代", "马上",
	"高中", "高校", "高峰", "高兴", "高达", "高潮", "程度", "许多", "曾经", "江湖", "石头", "钟头", "任何", "龙虎", "白色",
	"欧美", "关系", "关注", "包括", "宁波", "江苏", "江西", "黄河", "温暖", "康复", "蓝色", "齐名", "童年", "梁山", "武侠",
	"武术", "武打", "武状", "龙套", "包办", "江门", "武林", "史上", "易于", "简单", "管理", "雷霆", "龙门", "毛片", "严肃", "严重", "庄严", "尤其", "吉他",
	"卓越", "祝福", "甘心", "柯南", "纪录", "纪念", "季度", "苗条", "谷底", "盛大", "盛典", "翁婿", "包装", "鲁莽", "甄选",
	"洪水", "潘多", "邵氏", "嘉禾", "左右", "孔雀", "贺岁", "熊猫", "牛仔", "宋朝", "唐朝", "唐人", "明朝", "夏天", "夏季",
	"秦朝", "汤姆", "乔丹", "蒋介", "林林", "陆续", "史诗", "杜比", "余下", "韩国", "范围", "罗马", "龙卷", "戴着", "路上",
	"黎明", "邓丽", "欧洲", "施工", "康熙", "雷鸣", "金钱", "董事", "周期", "周围", "周六", "周日", "童话", "毕业", "田园")

// leftGlue are words that end with a surname character ("担任", "票房",
// "少林"): a candidate right after their first character is no name.
var leftGlue = setOf("担任", "主任", "责任", "信任", "出任", "继任", "上任", "历任", "现任", "首任", "少林", "树林", "森林",
	"园林", "武林", "跑龙", "一张", "两张", "主张", "开张", "紧张", "扩张", "嚣张", "夸张", "慌张", "伸张", "文章", "周周",
	"四周", "每周", "本周", "上周", "下周", "一周", "同学", "好莱", "美金", "奖金", "资金", "现金", "黄金", "基金", "合金",
	"大陆", "登陆", "着陆", "内陆", "天龙", "恐龙", "成龙")

// afterCues follow a person's name ("周星驰说", "王晶导演").
var afterCues = []string{"说", "表示", "导演", "主演", "饰演", "出生", "先生", "女士", "执导", "演唱", "称"}

// beforeCues precede a person's name ("导演王晶", "搭档吴孟达").
var beforeCues = []string{"导演", "主演", "演员", "歌手", "搭档", "妻子", "丈夫", "女友", "男友", "父亲", "母亲", "好友", "师父", "老板", "监制", "编剧",
	"诗人", "词人", "作家", "画家", "学者", "教授", "将军", "皇帝", "宰相", "丞相", "总统", "总理", "文学家", "思想家", "哲学家",
	"科学家", "政治家", "书法家", "音乐家", "儿子", "女儿", "弟弟", "哥哥", "姐姐", "妹妹", "朋友", "老师", "学生"}

// coordinators join two names ("韩愈和柳宗元"): a candidate met once is a
// name when an accepted name stands on the other side of one.
var coordinators = runeSet("和与及、同跟")

// honorifics follow a Japanese name written in kana text ("田中さん");
// the ones in Han count only when kana follows ("佐藤先生は").
var honorifics = []string{"さん", "くん", "ちゃん", "様", "氏", "先生"}

// runeSet builds a set of the runes of s.
func runeSet(s string) map[rune]bool {
	m := map[rune]bool{}
	for _, r := range s {
		m[r] = true
	}
	return m
}

// isHan reports a Han character.
func isHan(r rune) bool { return unicode.Is(unicode.Han, r) }

// cjkTables holds what the CJK passes learn from a whole document: the
// accepted person names, longest first.
type cjkTables struct {
	names []string
	set   map[string]bool
}

// cjkEntry is the lazily built per-document CJK table.
type cjkEntry struct {
	once sync.Once
	t    *cjkTables
}

// cjkTablesFor returns (building once per document) the CJK tables.
func (e *Extractor) cjkTablesFor(doc extract.Document) *cjkTables {
	key := doc.SHA256
	if key == "" {
		key = doc.Name + "\x00" + itoa(len(doc.Content)) + "\x00" + itoa(doc.ID)
	}
	e.mu.Lock()
	if e.cjk == nil || len(e.cjk) >= 128 {
		e.cjk = map[string]*cjkEntry{}
	}
	ent, ok := e.cjk[key]
	if !ok {
		ent = &cjkEntry{}
		e.cjk[key] = ent
	}
	e.mu.Unlock()
	ent.once.Do(func() { ent.t = buildCJKTables(maskCitations(doc.Content)) })
	return ent.t
}

// nameCandidate is a possible name at one position: surname plus one or
// two given-name characters (as runes).
func nameCandidates(rs []rune, i int) (surLen int, givens int) {
	surLen = 0
	if i+1 < len(rs) && compoundSurnames[string(rs[i:i+2])] {
		surLen = 2
	} else if surnames[rs[i]] {
		surLen = 1
	} else {
		return 0, 0
	}
	for k := 0; k < 2; k++ {
		j := i + surLen + k
		if j >= len(rs) || !isHan(rs[j]) || nameStops[rs[j]] || surLen+k >= 2 && startsCue(rs, j) {
			break
		}
		givens++
	}
	return surLen, givens
}

// startsCue reports whether an after-cue word starts at rune j.
func startsCue(rs []rune, j int) bool {
	for _, c := range afterCues {
		if hasRunePrefix(rs[j:], c) {
			return true
		}
	}
	return false
}

// hasRunePrefix reports whether rs starts with s.
func hasRunePrefix(rs []rune, s string) bool {
	k := 0
	for _, r := range s {
		if k >= len(rs) || rs[k] != r {
			return false
		}
		k++
	}
	return true
}

// buildCJKTables finds the person names of a document. A candidate is a
// common surname followed by one or two Han characters that are no
// particles or numerals. It is accepted when
//   - it opens the document (the article's subject, "周星驰（Stephen
//     Chow），1962年…"),
//   - or it recurs in the document: a three-character candidate when it
//     makes up at least half of the uses of its two-character prefix,
//     a two-character one when it recurs apart from accepted longer names,
//   - or a cue word follows it ("说", "导演", "饰演") or precedes it
//     ("搭档", "导演") and it recurs at least once more as a prefix.
//
// Common words that open with a surname character ("王国", "高度") are
// never names.
func buildCJKTables(content string) *cjkTables {
	rs := []rune(content)
	c := &cjkCounts{count: map[string]int{}, cued: map[string]bool{}, left: map[string]map[rune]int{}, right: map[string]map[rune]int{}}
	subject := c.scan(rs)
	accepted := c.accept(subject)
	coordinated(rs, accepted)
	for _, n := range honorificNames(rs) {
		accepted[n] = true
	}
	for _, n := range dottedNames(rs) {
		accepted[n] = true
	}
	t := &cjkTables{set: accepted}
	for name := range accepted {
		t.names = append(t.names, name)
	}
	sort.Slice(t.names, func(i, j int) bool {
		if len(t.names[i]) != len(t.names[j]) {
			return len(t.names[i]) > len(t.names[j])
		}
		return t.names[i] < t.names[j]
	})
	return t
}

// cjkCounts is what buildCJKTables learns of the person name candidates
// of a document.
type cjkCounts struct {
	count       map[string]int
	cued        map[string]bool
	left, right map[string]map[rune]int // glued characters before and after a candidate
}

// glue counts character r glued to candidate c in m.
func glue(m map[string]map[rune]int, c string, r rune) {
	if m[c] == nil {
		m[c] = map[rune]int{}
	}
	m[c][r]++
}

// scan counts the candidates of the text, the characters glued to them
// and the cues around them, and returns the document's subject: the
// candidate that opens it, "" when none does.
func (c *cjkCounts) scan(rs []rune) string {
	subject := ""
	for i := 0; i < len(rs); i++ {
		sl, g := nameCandidates(rs, i)
		if g == 0 {
			continue
		}
		prev := i == 0 || !isHan(rs[i-1])
		if i > 0 && (leftGlue[string(rs[i-1:i+1])] || rs[i] == '张' && (unicode.IsDigit(rs[i-1]) || strings.ContainsRune("首一二两三四五六七八九十几每整", rs[i-1]))) {
			continue
		}
		for k := 1; k <= g; k++ {
			c.countAt(rs, i, sl+k, k == g)
		}
		// The subject must end where the name may: "夏目漱" of "夏目漱石は"
		// is cut inside a word.
		if subject == "" && prev && strings.TrimSpace(string(rs[:i])) == "" && nameEnd(rs, i+sl+g) {
			subject = string(rs[i : i+sl+g])
		}
		// A Han run standing alone in text of another script ("The poet
		// 杜甫 was ...") that is a whole candidate is a name, unless it
		// reads as a place.
		if end := i + sl + g; looseEdge(rs, i-1) && looseEdge(rs, end) && !placeSuffixRunes[rs[end-1]] && !cjkPlaces[string(rs[i:end])] {
			c.cued[string(rs[i:end])] = true
		}
	}
	return subject
}

// countAt counts the candidate of n runes at rs[i], the characters glued
// to it and a cue word after it or, for the longest candidate there
// (longest), before it.
func (c *cjkCounts) countAt(rs []rune, i, n int, longest bool) {
	cand := string(rs[i : i+n])
	c.count[cand]++
	end := i + n
	if i > 0 && isHan(rs[i-1]) && !cjkLeftOK[rs[i-1]] {
		glue(c.left, cand, rs[i-1])
	}
	if end < len(rs) && isHan(rs[end]) && !cjkRightOK[rs[end]] {
		glue(c.right, cand, rs[end])
	}
	if end < len(rs) && startsCue(rs, end) {
		c.cued[cand] = true
	}
	for _, b := range beforeCues {
		if i >= utf8.RuneCountInString(b) && string(rs[i-utf8.RuneCountInString(b):i]) == b && longest {
			c.cued[cand] = true
		}
	}
}

// accept returns the candidates accepted as names (see buildCJKTables),
// the subject among them unless it is a common word.
func (c *cjkCounts) accept(subject string) map[string]bool {
	accepted := map[string]bool{}
	if subject != "" && !nonNames[subject] && !nonNames[prefixRunes(subject, 2)] {
		accepted[subject] = true
	}
	explained := map[string]int{}
	for _, cand := range c.longestFirst() {
		if nonNames[cand] || nonNames[prefixRunes(cand, 2)] {
			continue
		}
		// A candidate nearly always glued to the same character is part of
		// a word: "白质" of "蛋白质", "毛细血" of "毛细血管", "叶分泌" of
		// "前叶分泌".
		if fragment(c.left[cand], c.count[cand]) || fragment(c.right[cand], c.count[cand]) {
			continue
		}
		n := c.count[cand] - explained[cand]
		rc := []rune(cand)
		var prefix string
		if len(rc) > 2 {
			prefix = string(rc[:len(rc)-1])
		}
		if prefix == "" && explained[cand] > 0 && n < 3 {
			// Left over by an accepted longer name ("周星" beside "周星驰"):
			// a nickname or a coincidence, too weak alone.
			continue
		}
		if c.recurs(cand, prefix, n) || accepted[cand] {
			accepted[cand] = true
			if prefix != "" {
				explained[prefix] += c.count[cand]
			}
		}
	}
	return accepted
}

// longestFirst returns the candidates, longer ones first, so the shorter
// prefixes they explain are known when they come.
func (c *cjkCounts) longestFirst() []string {
	cands := make([]string, 0, len(c.count))
	for cand := range c.count {
		cands = append(cands, cand)
	}
	sort.Slice(cands, func(i, j int) bool {
		li, lj := utf8.RuneCountInString(cands[i]), utf8.RuneCountInString(cands[j])
		if li != lj {
			return li > lj
		}
		return cands[i] < cands[j]
	})
	return cands
}

// recurs reports whether candidate cand, used n times apart from the
// longer names that explain it, recurs enough to be a name: a
// three-character one (with its two-character prefix) in at least half of
// its prefix's uses, a two-character one twice, a cued one once when its
// prefix is not much more common.
func (c *cjkCounts) recurs(cand, prefix string, n int) bool {
	switch {
	case prefix != "" && n >= 2 && 2*n >= c.count[prefix]:
		return true
	case prefix == "" && n >= 2:
		return true
	case c.cued[cand] && n >= 1 && (prefix == "" || c.count[prefix] <= 2*n):
		return true
	}
	return false
}

// looseEdge reports whether rune i is outside the text, a space, or an
// ASCII letter, digit or mark: the edge of a Han run in mixed text.
func looseEdge(rs []rune, i int) bool {
	return i < 0 || i >= len(rs) || rs[i] < utf8.RuneSelf || unicode.IsSpace(rs[i])
}

// nameEnd reports whether a name may end before rune i: at the end, before
// a non-Han rune, a particle or a character no given name holds.
func nameEnd(rs []rune, i int) bool {
	return i >= len(rs) || !isHan(rs[i]) || cjkRightOK[rs[i]] || nameStops[rs[i]]
}

// coordinated accepts candidates met beside an accepted name across a
// coordinator: "韩愈和柳宗元", "柳宗元与韩愈".
func coordinated(rs []rune, accepted map[string]bool) {
	if len(accepted) == 0 {
		return
	}
	for i := 0; i < len(rs); i++ {
		sl, g := nameCandidates(rs, i)
		if g == 0 || i > 0 && isHan(rs[i-1]) && !coordinators[rs[i-1]] && !cjkLeftOK[rs[i-1]] {
			continue
		}
		for k := g; k >= 1; k-- {
			end := i + sl + k
			c := string(rs[i:end])
			if !nameEnd(rs, end) || nonNames[c] || nonNames[prefixRunes(c, 2)] || cjkPlaces[c] {
				continue
			}
			before := i >= 2 && coordinators[rs[i-1]] && acceptedEnding(rs[:i-1], accepted)
			after := end+1 < len(rs) && coordinators[rs[end]] && acceptedOpening(rs[end+1:], accepted)
			if before || after {
				accepted[c] = true
			}
			break
		}
	}
}

// acceptedEnding reports whether rs ends with an accepted name.
func acceptedEnding(rs []rune, accepted map[string]bool) bool {
	for n := 2; n <= 4 && n <= len(rs); n++ {
		if accepted[string(rs[len(rs)-n:])] {
			return true
		}
	}
	return false
}

// acceptedOpening reports whether rs opens with an accepted name.
func acceptedOpening(rs []rune, accepted map[string]bool) bool {
	for n := 2; n <= 4 && n <= len(rs); n++ {
		if accepted[string(rs[:n])] {
			return true
		}
	}
	return false
}

// honorificNames finds Japanese names by the honorific after them: the
// Han run (two to four characters) before "さん" or "くん", or before a
// Han honorific that kana follows ("佐藤先生は").
func honorificNames(rs []rune) []string {
	var out []string
	for i := 2; i < len(rs); i++ {
		for _, h := range honorifics {
			if !hasRunePrefix(rs[i:], h) {
				continue
			}
			hl := utf8.RuneCountInString(h)
			if isHan(rs[i]) && !(i+hl < len(rs) && unicode.In(rs[i+hl], unicode.Hiragana, unicode.Katakana)) {
				continue
			}
			start := i
			for start > 0 && i-start < 4 && isHan(rs[start-1]) {
				start--
			}
			if i-start >= 2 && (start == 0 || !isHan(rs[start-1])) {
				out = append(out, string(rs[start:i]))
			}
			break
		}
	}
	return out
}

// cjkLeftOK may stand before a name without gluing to it: particles,
// prepositions and the last characters of cue words ("导演", "歌手").
var cjkLeftOK = runeSet("的了在是和与及等也都就被把对从为以于之其而并说到后时将由所有又再已曾这那该此每各给向让使着过还跟同或即如像叫称演员手档子夫友亲板制剧导星任")

// cjkRightOK may follow a name without gluing to it: particles and the
// first characters of cue words ("说", "主演", "表示").
var cjkRightOK = runeSet("的了在是和与及等也都就被把对从为以于之其而并说表导主饰出先女执演称曾将已又再还跟同、向和获凭担于则便却")

// fragment reports whether one glued character accounts for at least
// four in five of a candidate's uses (and it has two or more).
func fragment(glued map[rune]int, n int) bool {
	if n < 2 {
		return false
	}
	for _, k := range glued {
		if 5*k >= 4*n {
			return true
		}
	}
	return false
}

// prefixRunes returns the first n runes of s.
func prefixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// cjkSuffixes type a run of Han characters by its last word: the
// category and the shortest and longest prefix, in characters.
var cjkSuffixes = []struct {
	suffix   string
	cat      category
	min, max int
}{
	{"电影节", catEvent, 2, 8}, {"音乐节", catEvent, 2, 8}, {"颁奖典礼", catEvent, 2, 10}, {"颁奖礼", catEvent, 2, 10},
	{"公司", catOrg, 2, 10}, {"集团", catOrg, 2, 8}, {"大学", catOrg, 2, 8}, {"学院", catOrg, 2, 8},
	{"中学", catOrg, 2, 6}, {"电视台", catOrg, 1, 6}, {"电台", catOrg, 2, 6}, {"唱片", catOrg, 2, 6},
	{"影业", catOrg, 2, 6}, {"协会", catOrg, 2, 8}, {"工作室", catOrg, 2, 6},
	{"奖", catMisc, 2, 10},
	{"大學", catOrg, 2, 8}, {"会社", catOrg, 2, 8}, {"大学校", catOrg, 2, 6},
	{"特别行政区", catLocation, 2, 2}, {"自治区", catLocation, 2, 3}, {"省", catLocation, 2, 3},
	{"市", catLocation, 2, 3}, {"县", catLocation, 2, 3}, {"縣", catLocation, 2, 3}, {"県", catLocation, 1, 3},
	{"区", catLocation, 2, 3}, {"府", catLocation, 2, 2}, {"州", catLocation, 1, 3}, {"镇", catLocation, 2, 3},
	{"鎮", catLocation, 2, 3}, {"村", catLocation, 2, 3}, {"城", catLocation, 1, 3}, {"山", catLocation, 1, 3},
	{"河", catLocation, 1, 3}, {"江", catLocation, 1, 2}, {"湖", catLocation, 1, 2}, {"岛", catLocation, 1, 3},
	{"島", catLocation, 1, 3}, {"川", catLocation, 1, 2},
	{"国", catLocation, 1, 1}, {"港", catLocation, 1, 1}, {"台", catLocation, 1, 1},
}

// cjkPlaces is a gazetteer of places that carry no suffix: China's
// provinces and best-known cities, countries, continents and Japan's
// best-known places. Matched only where no suffix-typed name stands.
var cjkPlaces = setOf(
	// Provinces, municipalities and regions.
	"北京", "天津", "上海", "重庆", "河北", "山西", "辽宁", "吉林", "黑龙江", "江苏", "浙江", "安徽", "福建", "江西",
	"山东", "河南", "湖北", "湖南", "广东", "海南", "四川", "贵州", "云南", "陕西", "甘肃", "青海", "台湾", "内蒙古",
	"广西", "西藏", "宁夏", "新疆", "香港", "澳门",
	// Cities, old capitals included.
	"南京", "西安", "长安", "洛阳", "开封", "杭州", "苏州", "扬州", "广州", "深圳", "成都", "武汉", "长沙", "沈阳",
	"哈尔滨", "青岛", "厦门", "大连", "昆明", "拉萨", "兰州", "郑州", "济南", "福州", "南昌", "合肥", "贵阳", "南宁",
	"太原", "石家庄", "呼和浩特", "乌鲁木齐", "银川", "西宁", "海口", "宁波", "无锡", "温州", "珠海", "汕头", "桂林",
	"台北", "高雄", "敦煌", "眉山", "绍兴", "徐州", "泉州", "汴京", "金陵", "临安", "燕京",
	// Countries and continents.
	"中国", "日本", "韩国", "朝鲜", "美国", "英国", "法国", "德国", "俄罗斯", "意大利", "西班牙", "葡萄牙", "荷兰",
	"加拿大", "澳大利亚", "新加坡", "马来西亚", "印度", "印度尼西亚", "越南", "泰国", "蒙古", "埃及", "巴西", "墨西哥",
	"亚洲", "欧洲", "非洲", "美洲", "大洋洲", "南极洲",
	// Rivers, lakes and mountains whose suffix may glue to the next
	// character ("黄河流经").
	"黄河", "长江", "珠江", "淮河", "汉江", "渭河", "黑龙江", "泰山", "华山", "黄山", "峨眉山", "庐山", "昆仑山", "天山",
	"喜马拉雅山", "西湖", "太湖", "洞庭湖", "鄱阳湖", "青海湖", "长城", "富士山", "琵琶湖",
	// Japan.
	"東京", "东京", "大阪", "京都", "北海道", "沖縄", "冲绳", "横浜", "横滨", "名古屋", "神戸", "神户", "福岡", "奈良",
	"広島", "广岛", "札幌", "仙台")

// cjkPlaceMax is the longest gazetteer entry, in runes.
const cjkPlaceMax = 5

// placeNonNames are words with a place or organisation suffix that name
// nothing in particular.
var placeNonNames = setOf("全国", "各国", "出国", "回国", "王国", "外国", "本国", "两国", "该国", "祖国", "爱国", "归国",
	"入港", "回港", "来港", "赴港", "在港", "留港", "抵港", "离港", "舞台", "平台", "上台", "后台", "登台", "出台", "电台",
	"地区", "社区", "城区", "市区", "景区", "郊区", "误区", "专区", "城市", "上市", "都市", "超市", "股市", "门市", "夜市",
	"节省", "反省", "获奖", "大奖", "颁奖", "得奖", "奖", "领奖", "评奖", "金奖", "嘉奖", "夸奖", "该奖", "此奖", "台湾台",
	"郡县", "州县", "开国", "建国", "进城", "出城", "入城", "攻城", "守城", "全城", "满城", "古城", "京城", "都城", "皇城",
	"县城", "王城", "上山", "下山", "爬山", "登山", "进山", "深山", "高山", "大山", "群山", "火山", "江山", "河山", "冰山",
	"靠山", "出山", "开山", "名山", "过河", "渡河", "运河", "大河", "小河", "内河", "护城河", "过江", "渡江", "大江",
	"江湖", "山川", "河川", "大川", "各州", "全州", "本州", "全村", "本村", "农村", "乡村", "山村", "渔村", "小岛", "半岛",
	"海岛", "群岛", "孤岛", "全岛", "本島", "村村", "城镇", "乡镇", "小镇", "全镇", "中区", "东区", "西区", "南区", "北区", "单台", "同台", "电视台", "唱片", "公司", "大学",
	"分公司", "子公司", "总公司", "学院", "集团", "协会", "工作室", "中学", "影业", "亚国", "英港", "港台", "电影公司", "唱片公司",
	"音乐公司", "经纪公司", "影视公司", "娱乐公司", "制作公司", "发行公司", "广告公司", "电视公司", "科技公司", "网络公司",
	"出版公司", "投资公司", "贸易公司", "父亲公司", "母亲公司", "家族公司", "该公司", "本公司", "新公司", "大公司", "小公司")

// prefixStops end the prefix of a suffix-typed name: particles, pronouns,
// ordinals and one-character verbs before it ("获得第30届香港电影金像奖"
// gives "香港电影金像奖"). "年" ends it unless "度" follows ("2005年度最佳
// 歌曲奖" keeps "年度").
var prefixStops = runeSet("的了在是和与及等也都就被把对从为以于之其而并个们说到后前时月日将由所有又再已曾不这那该此每各第届获得给向让使着过还很更首次或跟同至往去")

// boundaryWords are two-character verbs after which a suffix-typed name
// starts ("凭借", "成为", "参加").
var boundaryWords = setOf("获得", "荣获", "凭借", "担任", "出任", "成为", "进入", "加入", "参加", "登上", "报考", "来自", "前往",
	"位于", "出生", "毕业", "就读", "举办", "举行", "主演", "出演", "导演", "执导", "入围", "提名", "颁发", "获颁", "签约", "加盟",
	"创办", "成立", "创立", "拍摄", "发行", "推出", "演唱", "担纲", "考入", "入读", "转入", "回到", "来到", "留在", "移居", "定居",
	"开设", "开办", "组建", "任职", "供职", "效力", "代表", "隶属", "属于", "出席", "参与", "参展", "亮相", "主持", "访问",
	"到访", "抵达", "离开", "参观", "入选", "赢得", "夺得", "斩获", "摘得", "问鼎", "调入", "主席", "籍贯", "出品", "制作", "监制")

// prefixEnd reports whether the prefix of a suffix-typed name cannot
// reach back past rune k-1: a particle or one-character verb, "年" not
// before "度", or a two-character boundary word ending there.
func prefixEnd(rs []rune, k int) bool {
	if k <= 0 || !isHan(rs[k-1]) || prefixStops[rs[k-1]] {
		return true
	}
	if rs[k-1] == '年' && !(k < len(rs) && rs[k] == '度') {
		return true
	}
	return k >= 2 && boundaryWords[string(rs[k-2:k])]
}

// cjkPlaceSpans finds organisations, places, events and awards by their
// suffix. The prefix is a run of Han characters, cut after the last
// particle, verb or numeral, and bounded in length.
func cjkPlaceSpans(text string) []entity {
	rs := []rune(text)
	off := make([]int, len(rs)+1) // byte offset of each rune
	b := 0
	for i, r := range rs {
		off[i] = b
		b += utf8.RuneLen(r)
	}
	off[len(rs)] = b
	// Long suffixes first, so "香港电影金像奖" is not cut at "香港".
	long := suffixPass(rs, off, nil, false)
	covered := make([]bool, len(rs))
	for _, en := range long {
		for i := range rs {
			if off[i] >= en.start && off[i] < en.end {
				covered[i] = true
			}
		}
	}
	short := suffixPass(rs, off, covered, true)
	for _, en := range short {
		for i := range rs {
			if off[i] >= en.start && off[i] < en.end {
				covered[i] = true
			}
		}
	}
	out := append(long, short...)
	return append(out, gazetteerPass(rs, off, covered)...)
}

// gazetteerPass finds the places of cjkPlaces in uncovered runes, longest
// first at each position.
func gazetteerPass(rs []rune, off []int, covered []bool) []entity {
	var out []entity
	for i := 0; i < len(rs); i++ {
		if covered[i] || !isHan(rs[i]) {
			continue
		}
		for n := min(cjkPlaceMax, len(rs)-i); n >= 2; n-- {
			if covered[i+n-1] || !cjkPlaces[string(rs[i:i+n])] {
				continue
			}
			out = append(out, entity{start: off[i], end: off[i+n], cat: catLocation, typed: true, name: string(rs[i : i+n]), tokFirst: -1, tokLast: -1})
			i += n - 1
			break
		}
	}
	return out
}

// placeSuffixRunes are the one-character suffixes of places.
var placeSuffixRunes = runeSet("省市县縣県区府州镇鎮村城山河江湖岛島川")

// featureSuffixRunes name natural features and towns; adminSuffixRunes
// the divisions that may follow them ("黄山市", "临川县").
var (
	featureSuffixRunes = runeSet("州城山河江湖岛島川村镇鎮")
	adminSuffixRunes   = runeSet("省市县縣県区府")
)

// endsPlace reports whether rs ends with a gazetteer place.
func endsPlace(rs []rune) bool { return placeEnding(rs) > 0 }

// placeEnding returns the length in runes of the longest gazetteer place
// ending rs, or 0.
func placeEnding(rs []rune) int {
	for n := min(cjkPlaceMax, len(rs)); n >= 2; n-- {
		if cjkPlaces[string(rs[len(rs)-n:])] {
			return n
		}
	}
	return 0
}

// leadingPlace returns the length in runes of a gazetteer place opening
// rs, or 0: "江西" of "江西临川", "四川" of "四川眉山".
func leadingPlace(rs []rune) int {
	for n := min(cjkPlaceMax, len(rs)); n >= 2; n-- {
		if cjkPlaces[string(rs[:n])] {
			return n
		}
	}
	return 0
}

// suffixPass runs the suffixes with one-character place suffixes (short)
// or the others, skipping covered runes.
func suffixPass(rs []rune, off []int, covered []bool, short bool) []entity {
	var out []entity
	lastEnd := 0
	for i := 0; i < len(rs); i++ {
		if !isHan(rs[i]) || covered != nil && covered[i] {
			if covered != nil && covered[i] {
				lastEnd = i + 1
			}
			continue
		}
		for _, s := range cjkSuffixes {
			if (s.max <= 1) != short || !hasRunePrefix(rs[i:], s.suffix) {
				continue
			}
			end := i + utf8.RuneCountInString(s.suffix)
			// The next character must not make a word with a one-character
			// suffix ("国产", "台词", "港币").
			if utf8.RuneCountInString(s.suffix) == 1 && end < len(rs) && oneCharSuffixGlue[string(rs[end-1:end+1])] {
				break
			}
			// Nor must it open a longer place name: "临川" of "临川县".
			if end < len(rs) && featureSuffixRunes[rs[end-1]] && adminSuffixRunes[rs[end]] {
				break
			}
			start := i
			reach := s.max
			if s.cat == catLocation {
				reach += cjkPlaceMax // room for a leading province to split off
			}
			for start > lastEnd && i-start < reach && !prefixEnd(rs, start) {
				start--
			}
			// A place after a province or country of the gazetteer is named
			// without it: "眉山" of "四川眉山", "临川县" of "江西临川县".
			if s.cat == catLocation {
				// A gazetteer place keeps its stop characters: "京都市".
				if n := placeEnding(rs[lastEnd:i]); n > i-start {
					start = i - n
				}
				if n := leadingPlace(rs[start:i]); n > 0 && i-start-n >= s.min {
					start += n
				}
				if i-start > s.max {
					break
				}
			}
			// The name must start at a boundary, not inside a word cut by
			// the length limit ("坡金曲奖" of "新加坡金曲奖").
			if i-start < s.min || start > lastEnd && !prefixEnd(rs, start) && !(s.cat == catLocation && endsPlace(rs[:start])) {
				break
			}
			name := string(rs[start:end])
			if placeNonNames[name] {
				break
			}
			out = append(out, entity{start: off[start], end: off[end], cat: s.cat, typed: true, name: name, tokFirst: -1, tokLast: -1})
			i, lastEnd = end-1, end
			break
		}
	}
	return out
}

// oneCharSuffixGlue are two-character words whose first character is a
// one-character suffix: "国产" is no "…国" place.
var oneCharSuffixGlue = setOf("国产", "国际", "国家", "国内", "国外", "国语", "国民", "国籍", "国宝", "国片", "台词", "台湾",
	"台北", "台下", "台上", "港币", "港元", "港片", "港剧", "港产", "港姐", "市场", "市民", "市长", "区域", "区别", "区分",
	"省份", "县城", "国剧", "台前", "港台", "国语", "港澳", "国王", "台风", "城市", "城墙", "城门", "城里", "城外",
	"城内", "城中", "城堡", "城乡", "山上", "山下", "山区", "山脉", "山水", "山顶", "山谷", "山坡", "山脚", "山峰",
	"山寨", "山村", "河流", "河边", "河畔", "河水", "河道", "河岸", "河谷", "江边", "江水", "江畔", "江湖", "湖泊",
	"湖边", "湖水", "湖畔", "湖面", "州长", "村民", "村里", "村长", "村庄", "村子", "镇上", "镇长", "岛上", "岛屿",
	"島々", "川流", "府上", "山东", "山西", "河北", "河南", "湖北", "湖南", "江苏", "江西", "城镇")

// cjkPersonSpans finds the document's accepted names in a chunk, longest
// first, never inside a Han word run that continues the surname to the
// left as a known non-name.
func cjkPersonSpans(text string, t *cjkTables) []entity {
	if t == nil || len(t.names) == 0 {
		return nil
	}
	var out []entity
	for i := 0; i < len(text); {
		matched := false
		for _, n := range t.names {
			if strings.HasPrefix(text[i:], n) {
				out = append(out, entity{start: i, end: i + len(n), cat: catPerson, typed: true, name: n, tokFirst: -1, tokLast: -1})
				i += len(n)
				matched = true
				break
			}
		}
		if !matched {
			_, sz := utf8.DecodeRuneInString(text[i:])
			i += sz
		}
	}
	return out
}

// cjkVerbs label an edge between two entities of a CJK sentence when one
// of them stands between the two (longest first).
var cjkVerbs = []string{"出生于", "毕业于", "就读于", "主演", "导演", "执导", "出演", "饰演", "参演", "获得", "荣获", "入围",
	"提名", "编剧", "监制", "演唱", "发行", "创作", "推出", "加盟", "加入", "签约", "成立", "担任", "合作", "搭档", "举办",
	"拍摄", "配音", "结婚", "嫁给", "迎娶", "出生", "凭借", "获", "生于", "位于", "发源于", "流经", "移居", "任职于",
	"死于", "葬于", "创办", "建立", "访问"}

// cjkVerb returns the verb between two entities of a CJK sentence, or ""
// when the text between is long or holds none.
func cjkVerb(between string) string {
	between = strings.TrimSpace(between)
	if utf8.RuneCountInString(between) > 12 {
		return ""
	}
	best, at := "", len(between)+1
	for _, v := range cjkVerbs {
		if i := strings.Index(between, v); i >= 0 && (i < at || i == at && len(v) > len(best)) {
			best, at = v, i
		}
	}
	return best
}

// cjkRE finds names in CJK text: bracketed or quoted names (group 1-4),
// dates (group 5), numbers with an optional unit (group 6) and Latin words
// (group 7).
var cjkRE = regexp.MustCompile(`《([^》\n]{1,40})》|「([^」\n]{1,40})」|“([^”\n]{1,40})”|【([^】\n]{1,40})】` +
	`|(\d{4}年(?:\d{1,2}月(?:\d{1,2}[日号])?)?|\d{1,2}月\d{1,2}[日号]|\d{4}-\d{1,2}-\d{1,2})` +
	`|(\d+(?:\.\d+)?(?:千万|百万|万|亿)?(?:%|％|美元|港元|港币|人民币|元|岁|张|首|部|场|次|集|人|名|倍|座|项)?)` +
	`|([A-Za-z][A-Za-z0-9\-\.']*[A-Za-z0-9](?: [A-Z][A-Za-z0-9\-\.']*[A-Za-z0-9])*)`)

// yearRE matches a bare number that reads as a year.
var yearRE = regexp.MustCompile(`^(?:1[5-9]\d\d|20\d\d)$`)

// cjkEntities is the pass for CJK text, which prose cannot read: titles
// in 《》 are works, other bracketed or quoted names concepts; dates, years
// and numbers with a unit ("5.6亿", "300万") are data, while bare numbers
// that are no year and ordinals ("第4") are dropped; then the document's
// person names (see buildCJKTables) and names typed by their suffix (see
// cjkPlaceSpans). Where candidates overlap, the earlier one wins, and at
// the same start the longer one.
func cjkEntities(text string, tables *cjkTables) ([]entity, []span) {
	var sents []span
	// Clauses: sentences, cut again at "；", so that no pair of
	// entities spans a semicolon.
	for _, s := range extract.Sentences(text) {
		start := s.Start
		for {
			k := strings.Index(text[start:s.End], "；")
			if k < 0 {
				break
			}
			sents = append(sents, span{start, start + k + len("；")})
			start += k + len("；")
		}
		if start < s.End {
			sents = append(sents, span{start, s.End})
		}
	}
	var out []entity
	for _, m := range cjkRE.FindAllStringSubmatchIndex(text, -1) {
		var en entity
		switch {
		case m[2] >= 0:
			en = entity{start: m[2], end: m[3], cat: catWork, typed: true}
		case m[4] >= 0 || m[6] >= 0 || m[8] >= 0:
			for g := 2; g <= 4; g++ {
				if m[2*g] >= 0 {
					en = entity{start: m[2*g], end: m[2*g+1], cat: catMisc}
				}
			}
		case m[10] >= 0:
			en = entity{start: m[10], end: m[11], cat: catDate, typed: true}
			// "2005年度…": the year alone is the date, "年度" opens a name.
			if strings.HasSuffix(text[m[10]:m[11]], "年") && strings.HasPrefix(text[m[11]:], "度") {
				en.end -= len("年")
			}
		case m[12] >= 0:
			en = entity{start: m[12], end: m[13], cat: catNumber, typed: true}
			num := text[m[12]:m[13]]
			switch {
			case strings.HasSuffix(text[:m[12]], "第"):
				continue // an ordinal
			case strings.Trim(num, "0123456789") == "":
				if !yearRE.MatchString(num) {
					continue // a bare count, index or stray marker
				}
				en.cat = catDate
			case strings.Trim(num, "0123456789.") == "":
				continue // a bare decimal
			}
		default:
			if m[15]-m[14] < 2 {
				continue
			}
			en = entity{start: m[14], end: m[15], cat: catMisc}
		}
		en.tokFirst, en.tokLast = -1, -1
		en.name = strings.TrimSpace(text[en.start:en.end])
		if en.name == "" {
			continue
		}
		out = append(out, en)
	}
	out = append(out, cjkPersonSpans(text, tables)...)
	out = append(out, cjkPlaceSpans(text)...)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].start != out[j].start {
			return out[i].start < out[j].start
		}
		return out[i].end > out[j].end
	})
	kept := out[:0]
	for _, en := range out {
		if n := len(kept); n > 0 && en.start < kept[n-1].end {
			continue
		}
		en.sent = sentAt(sents, en.start)
		kept = append(kept, en)
	}
	return kept, sents
}

// isCJKLetter reports a Han, kana or Hangul letter.
func isCJKLetter(r rune) bool {
	return r >= 0x1100 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// hasCJK reports whether text holds any CJK letter. Text without a rune
// past U+10FF is answered by one byte scan.
func hasCJK(text string) bool {
	for i := 0; i < len(text); i++ {
		if text[i] < utf8.RuneSelf {
			continue
		}
		for _, r := range text[i:] {
			if isCJKLetter(r) {
				return true
			}
		}
		return false
	}
	return false
}

// mixCJK adds to the entities of mostly non-CJK text those that the CJK
// rules find in its CJK runs ("The poet 杜甫 was born near 洛阳", or a
// whole Chinese sentence quoted in English): only CJK entities that hold
// a CJK letter are kept, and a prose entity holding a CJK letter gives way
// to them. Prose sentences stay the sentences, so both kinds of entity
// of one sentence are linked; text the prose pass could not read takes
// the CJK sentences.
func mixCJK(text string, ents []entity, sents []span, tables *cjkTables) ([]entity, []span) {
	cents, csents := cjkEntities(text, tables)
	if len(sents) == 0 {
		sents = csents
	}
	var add []entity
	for _, en := range cents {
		if hasCJK(text[en.start:en.end]) {
			en.sent = sentAt(sents, en.start)
			add = append(add, en)
		}
	}
	if len(add) == 0 {
		return ents, sents
	}
	out := make([]entity, 0, len(ents)+len(add))
	for _, en := range ents {
		clash := hasCJK(text[en.start:en.end])
		for _, c := range add {
			if clash || c.start < en.end && en.start < c.end {
				clash = true
				break
			}
		}
		if !clash {
			out = append(out, en)
		}
	}
	out = append(out, add...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out, sents
}

// cjkStandIn is the word the English tagger reads for a CJK word: it
// knows no Han, and a proper noun in its place keeps the tags around it
// ("李白 visited 北京" tags "visited" as a past tense).
const cjkStandIn = "Smith"

// cjkStandIns returns a copy of words with each word holding a CJK letter
// replaced by cjkStandIn.
func cjkStandIns(words []string) []string {
	out := append([]string(nil), words...)
	for i, w := range out {
		if hasCJK(w) {
			out[i] = cjkStandIn
		}
	}
	return out
}

// nameDots join the parts of a foreign name written in Han or kana:
// "列夫·托尔斯泰", "レオナルド・ダ・ヴィンチ".
var nameDots = runeSet("·・•")

// isKatakana reports a katakana letter or the prolonged sound mark.
func isKatakana(r rune) bool { return r == 'ー' || unicode.Is(unicode.Katakana, r) }

// dottedNames finds foreign names: two or more parts of one script joined
// by a name dot, each part one to six characters. Katakana parts end
// where the katakana does; Han parts must start after a particle, verb or
// punctuation and end before a particle or punctuation, since Han runs on.
func dottedNames(rs []rune) []string {
	var out []string
	for i := 1; i < len(rs)-1; i++ {
		if !nameDots[rs[i]] {
			continue
		}
		var in func(rune) bool
		switch {
		case isKatakana(rs[i-1]) && isKatakana(rs[i+1]):
			in = isKatakana
		case isHan(rs[i-1]) && isHan(rs[i+1]):
			in = isHan
		default:
			continue
		}
		han := isHan(rs[i-1])
		start := i - 1
		for start > 0 && i-start < 6 && in(rs[start-1]) && !(han && prefixEnd(rs, start)) {
			start--
		}
		if han && !prefixEnd(rs, start) || !han && start > 0 && in(rs[start-1]) {
			continue // the first part runs on past six characters
		}
		end, parts := i, 1
		for end < len(rs) && nameDots[rs[end]] {
			k := end + 1
			for k < len(rs) && k-end <= 6 && in(rs[k]) && !(han && k > end+1 && cjkRightOK[rs[k]]) {
				k++
			}
			if k == end+1 {
				break
			}
			end, parts = k, parts+1
		}
		if parts >= 2 && !(end < len(rs) && in(rs[end]) && !(han && cjkRightOK[rs[end]])) {
			out = append(out, string(rs[start:end]))
		}
		i = end
	}
	return out
}

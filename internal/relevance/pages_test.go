package relevance

import (
	"bytes"
	"io"
	"testing"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/simplifiedchinese"

	"focuscrawl/internal/parse"
	"focuscrawl/internal/textproc"
	"focuscrawl/internal/topic"
)

// Real-looking test pages, English and Chinese, on- and off-topic for a
// machine-learning topic. The Chinese ones are served GBK-encoded.
const (
	enOn = `<html><head><title>Training neural networks with gradient descent</title></head><body>
<h1>Neural network training</h1><p>A neural network is trained by gradient descent: the gradient of the
loss with respect to every weight is computed by backpropagation, and each training step moves the weights
against the gradient. Stochastic gradient descent (SGD) uses mini-batches. A convolutional network (CNN)
is a neural network for images; training it needs many labelled examples. The classifier learns features.</p>
<p><a href="/cnn">Convolutional neural networks</a> · <a href="/sgd">SGD and Adam</a></p></body></html>`
	enOff = `<html><head><title>Premier League: match report</title></head><body>
<h1>United win the derby</h1><p>The striker scored twice in the second half and the goalkeeper saved a
penalty. The club now leads the league table by four points; the manager praised the defence and the fans
sang until the final whistle. Next week the team travels to London for the cup quarter-final.</p>
<p><a href="/table">League table</a> · <a href="/fixtures">Fixtures</a></p></body></html>`
	zhOn = `<html><head><meta charset="gbk"><title>神经网络的训练与梯度下降</title></head><body>
<h1>神经网络训练</h1><p>神经网络通过梯度下降进行训练：用反向传播计算损失函数对每个参数的梯度，每一步训练都沿梯度的反方向更新参数。
随机梯度下降每次只使用一小批样本。卷积神经网络是用于图像的神经网络，训练它需要大量带标注的样本。机器学习中的分类器从特征中学习。</p>
<p><a href="/cnn">卷积神经网络</a> <a href="/sgd">随机梯度下降</a></p></body></html>`
	zhOff = `<html><head><meta charset="gbk"><title>周末美食：红烧肉的做法</title></head><body>
<h1>红烧肉</h1><p>五花肉切块，冷水下锅焯水，加入冰糖炒出糖色，再放入生抽、老抽和料酒，小火慢炖一个小时。
出锅前大火收汁，撒上葱花即可。这道家常菜肥而不腻，配米饭最好吃。周末和家人一起去市场买菜，做一桌好菜。</p>
<p><a href="/fish">红烧鱼</a> <a href="/soup">排骨汤</a></p></body></html>`
)

// gbkPage encodes html as GBK, decodes it as a crawler would (charset from
// the Content-Type) and parses it into a filter Page with position classes.
func gbkPage(t *testing.T, url, html string) *Page {
	t.Helper()
	enc, err := simplifiedchinese.GBK.NewEncoder().Bytes([]byte(html))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(enc, []byte(html)) {
		t.Fatal("GBK encoding changed nothing")
	}
	r, err := charset.NewReader(bytes.NewReader(enc), "text/html; charset=gbk")
	if err != nil {
		t.Fatal(err)
	}
	dec, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return htmlPage(t, url, string(dec))
}

func htmlPage(t *testing.T, url, html string) *Page {
	t.Helper()
	doc, err := parse.Parse(url, []byte(html), parse.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tok := textproc.Shared()
	return &Page{URL: url, Title: doc.Title, TF: tok.TermFreq(doc.Title + "\n" + doc.Title + "\n" + doc.Text),
		AnchorTF: tok.TermFreq(doc.Anchor), EmphasisTF: tok.TermFreq(doc.Emphasis), OtherTF: tok.TermFreq(doc.Other)}
}

type langCase struct {
	lang    string
	topic   string
	on, off *Page
}

func langCases(t *testing.T) []langCase {
	return []langCase{
		{"en", "name: ml\nkeywords: {neural network: 1, training: 0.8, gradient: 0.8}\nlexicon: ml-en\nseeds: [http://x/]",
			htmlPage(t, "http://ml.test/nn", enOn), htmlPage(t, "http://sport.test/derby", enOff)},
		{"zh", "name: ml\nkeywords: {神经网络: 1, 训练: 0.8, 梯度: 0.8}\nlexicon: ml-zh\nseeds: [http://x/]",
			gbkPage(t, "http://ml.test/nn", zhOn), gbkPage(t, "http://food.test/pork", zhOff)},
	}
}

func topicOf(t *testing.T, yaml string) *topic.Topic {
	t.Helper()
	tp, err := topic.Parse([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

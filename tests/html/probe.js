/* probe.js - what headless Chromium made of a primbench HTML page.
 *
 * tests/html/probe.py injects this into a COPY of the page (the page itself
 * has no script), after a line setting PB_EXPECT = {sections: [...],
 * min_figures: N}. After the load event it checks the page as drawn and
 * appends a <pre> with the id pb-probe to the body: one line per finding,
 * "FAIL ..." for a failure, "fig-N ..." for each picture's figures, and
 * "DONE" last, which `chromium --dump-dom` prints for probe.py to read. It
 * writes nothing to the console: any console message is the page's.
 *
 * Checked: the named elements (each expected <section id>, one <h1>, the
 * generator <meta>); every <img> loaded (complete, naturalWidth > 0),
 * shown (a box of non-zero size) and drawn (painted on a white canvas at
 * its natural size: at least MIN_INK pixels not near white); no
 * resource fetched (Resource Timing lists every fetch but data: URLs, the
 * failed ones too); each paragraph-like text block at most 80 columns
 * wide (the width of 80 "0" in its own font, as CSS's 80ch).
 */
(function () {
	var MIN_INK = 200; /* pixels: a frame and a line, not a blank picture */
	var TEXT_BLOCKS = 'p, li, dd, dt, figcaption, blockquote';

	function run() {
		var lines = [];
		var fail = function (s) { lines.push('FAIL ' + s); };
		var expect = window.PB_EXPECT || { sections: [], min_figures: 0 };
		var i;

		for (i = 0; i < expect.sections.length; i++) {
			var s = document.getElementById(expect.sections[i]);
			if (!s || s.tagName !== 'SECTION')
				fail('no <section id="' + expect.sections[i] + '">');
		}
		var h1 = document.getElementsByTagName('h1').length;
		if (h1 !== 1)
			fail(h1 + ' <h1> elements, not one');
		var gen = document.querySelector('meta[name="generator"]');
		if (!gen || gen.getAttribute('content').indexOf('primbench') !== 0)
			fail('no <meta name="generator" content="primbench ...">');

		var figs = document.querySelectorAll('figure.pb-figure');
		var drawn = 0;
		var imgs = document.getElementsByTagName('img');
		for (i = 0; i < imgs.length; i++) {
			var im = imgs[i];
			var fig = im.closest('figure.pb-figure');
			var name = fig && fig.id ? fig.id : 'img ' + (i + 1);
			if (!im.complete || im.naturalWidth === 0 || im.naturalHeight === 0) {
				fail(name + ': the picture did not load (naturalWidth ' + im.naturalWidth + ')');
				continue;
			}
			var w = im.naturalWidth, h = im.naturalHeight;
			var c = document.createElement('canvas');
			c.width = w;
			c.height = h;
			var g = c.getContext('2d');
			g.fillStyle = '#ffffff';
			g.fillRect(0, 0, w, h);
			g.drawImage(im, 0, 0, w, h);
			var px = g.getImageData(0, 0, w, h).data, ink = 0, k;
			for (k = 0; k < px.length; k += 4)
				if (px[k] < 240 || px[k + 1] < 240 || px[k + 2] < 240)
					ink++;
			var box = im.getBoundingClientRect();
			lines.push(name + ' ' + w + 'x' + h + ' ink=' + ink + ' shown=' +
				   Math.round(box.width) + 'x' + Math.round(box.height));
			if (ink < MIN_INK)
				fail(name + ': the picture is blank (' + ink + ' pixels drawn)');
			else if (box.width < 1 || box.height < 1)
				fail(name + ': the picture is not shown (' + box.width + 'x' + box.height + ')');
			else if (fig)
				drawn++;
		}
		lines.push('figures ' + figs.length + ' drawn ' + drawn);
		if (drawn < expect.min_figures)
			fail(drawn + ' figures drawn, want at least ' + expect.min_figures);

		var res = performance.getEntriesByType('resource');
		for (i = 0; i < res.length; i++)
			fail('fetched ' + res[i].name.slice(0, 100));

		var blocks = document.querySelectorAll(TEXT_BLOCKS), wide = 0;
		for (i = 0; i < blocks.length; i++) {
			var b = blocks[i];
			if (b.closest('table, pre') || b.getClientRects().length === 0)
				continue;
			var ruler = document.createElement('span');
			ruler.style.whiteSpace = 'pre';
			ruler.textContent = new Array(81).join('0');
			b.appendChild(ruler);
			var cols80 = ruler.getBoundingClientRect().width;
			b.removeChild(ruler);
			var bw = b.getBoundingClientRect().width;
			if (bw > cols80 + 1 && wide++ < 3) {
				var where = b.closest('section[id]');
				fail('<' + b.tagName.toLowerCase() + '> in ' + (where ? '#' + where.id : 'the page') +
				     ' is ' + Math.round(bw) + ' px wide, more than 80 columns (' +
				     Math.round(cols80) + ' px)');
			}
		}
		if (wide > 3)
			fail((wide - 3) + ' more text blocks wider than 80 columns');

		lines.push('DONE');
		var out = document.createElement('pre');
		out.id = 'pb-probe';
		out.textContent = lines.join('\n');
		document.body.appendChild(out);
	}

	window.addEventListener('load', function () {
		try {
			run();
		} catch (e) {
			var out = document.createElement('pre');
			out.id = 'pb-probe';
			out.textContent = 'FAIL the probe threw: ' + e + '\nDONE';
			document.body.appendChild(out);
		}
	});
})();

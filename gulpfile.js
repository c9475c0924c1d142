// Copies what tsc does not emit into dist/: the themed icons (referenced by the nodes and the
// credential as file:../icons/...) and each node's codex file (X.node.json next to X.node.js).
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src('icons/*.svg').pipe(dest('dist/icons'));
}

function copyCodex() {
	return src('nodes/**/*.node.json').pipe(dest('dist/nodes'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);

// validate.js - the Khronos glTF validator on one file:
//   node validate.js <node_modules folder> <file.glb>
// Prints the counts and every issue; exits 0 when there is no error, 1 when
// there is one, 2 when the validator cannot be loaded or the file read.
'use strict';
const fs = require('fs');
const path = require('path');

const [modules, file] = process.argv.slice(2);
if (!modules || !file) {
    console.error('usage: node validate.js <node_modules folder> <file.glb>');
    process.exit(2);
}
let validator;
try {
    validator = require(path.join(modules, 'gltf-validator'));
} catch (e) {
    console.error(`validate.js: gltf-validator is not installed under ${modules} ` +
                  `(the test gltf_validator_install puts it there with npm): ${e.message}`);
    process.exit(2);
}
const severities = ['error', 'warning', 'info', 'hint'];
validator.validateBytes(new Uint8Array(fs.readFileSync(file)), {maxIssues: 0})
    .then((report) => {
        const i = report.issues;
        console.log(`${file}: errors ${i.numErrors} warnings ${i.numWarnings} infos ${i.numInfos} hints ${i.numHints}`);
        for (const m of i.messages) {
            console.log(`  ${severities[m.severity] || m.severity} ${m.code} at ${m.pointer || m.offset}: ${m.message}`);
        }
        process.exit(i.numErrors === 0 ? 0 : 1);
    })
    .catch((e) => {
        console.error(`validate.js: ${file}: ${e}`);
        process.exit(2);
    });

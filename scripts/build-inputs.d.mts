/** Types of scripts/build-inputs.mjs (plain JavaScript, so that a build needs only `typescript`). */
export declare const BUILD_INPUTS_FILE: string;
export declare function buildInputsHash(root: string): string;

export declare const SOURCE_DIRS: string[];
/** Whether dist/server exists, was finished and is newer than every source file under `root`. */
export declare function buildIsCurrent(root: URL): boolean;

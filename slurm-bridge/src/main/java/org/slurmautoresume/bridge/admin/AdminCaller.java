package org.slurmautoresume.bridge.admin;

/** Who runs an admin command: the effective user's name and uid. */
public record AdminCaller(String name, long uid) {

    public boolean isRoot() {
        return uid == 0;
    }

    @Override
    public String toString() {
        return name + "(" + uid + ")";
    }
}

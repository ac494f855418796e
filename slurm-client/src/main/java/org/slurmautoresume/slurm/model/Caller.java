package org.slurmautoresume.slurm.model;

/** Who is asking, as the kernel says (the socket's peer credentials), never as the caller says. */
public record Caller(long uid, String name) {

    public boolean isRoot() {
        return uid == 0;
    }

    @Override
    public String toString() {
        return name + "(" + uid + ")";
    }
}
